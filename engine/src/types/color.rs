//! The two sides. Sente (先手, "black", `b` in SFEN) moves first in an even game; in handicap
//! games the handicap giver plays gote and moves first. [`ByColor`] keeps a value per side,
//! indexed by `Color`, so no table of two is indexed by a bare number.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::ops::{Index, IndexMut};

/// A side of the board. Serialized as its [`Color::name`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Color {
    /// 先手 (black, `b` in SFEN, `+` in CSA).
    Sente,
    /// 後手 (white, `w` in SFEN, `-` in CSA).
    Gote,
}

impl Color {
    /// Both colors, sente first.
    pub const BOTH: [Color; 2] = [Color::Sente, Color::Gote];

    /// The other side.
    #[must_use]
    pub const fn opposite(self) -> Self {
        match self {
            Self::Sente => Self::Gote,
            Self::Gote => Self::Sente,
        }
    }

    /// The lower-case English name, `"sente"` or `"gote"` (the spelling of `results.jsonl`).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Sente => "sente",
            Self::Gote => "gote",
        }
    }

    pub(crate) const fn to_rs(self) -> rsshogi::types::Color {
        match self {
            Self::Sente => rsshogi::types::Color::BLACK,
            Self::Gote => rsshogi::types::Color::WHITE,
        }
    }

    pub(crate) const fn from_rs(color: rsshogi::types::Color) -> Self {
        match color {
            rsshogi::types::Color::Black => Self::Sente,
            rsshogi::types::Color::White => Self::Gote,
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A value for each side (as shakmaty's `ByColor`): index it by [`Color`], `map` it, iterate it
/// sente first. Serialized as `[sente, gote]`, the form of a `[T; 2]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ByColor<T> {
    pub sente: T,
    pub gote: T,
}

impl<T> ByColor<T> {
    /// Each side's value from `f`, sente's first.
    pub fn new_with(mut f: impl FnMut(Color) -> T) -> Self {
        let sente = f(Color::Sente);
        ByColor {
            sente,
            gote: f(Color::Gote),
        }
    }

    pub const fn get(&self, color: Color) -> &T {
        match color {
            Color::Sente => &self.sente,
            Color::Gote => &self.gote,
        }
    }

    pub fn get_mut(&mut self, color: Color) -> &mut T {
        match color {
            Color::Sente => &mut self.sente,
            Color::Gote => &mut self.gote,
        }
    }

    /// Both values through `f`, sente's first.
    pub fn map<U>(self, mut f: impl FnMut(T) -> U) -> ByColor<U> {
        let sente = f(self.sente);
        ByColor {
            sente,
            gote: f(self.gote),
        }
    }

    /// Both values through `f`, which is told whose each is (sente's first).
    pub fn map_with_color<U>(self, mut f: impl FnMut(Color, T) -> U) -> ByColor<U> {
        let sente = f(Color::Sente, self.sente);
        ByColor {
            sente,
            gote: f(Color::Gote, self.gote),
        }
    }

    pub const fn as_ref(&self) -> ByColor<&T> {
        ByColor {
            sente: &self.sente,
            gote: &self.gote,
        }
    }

    pub fn as_mut(&mut self) -> ByColor<&mut T> {
        ByColor {
            sente: &mut self.sente,
            gote: &mut self.gote,
        }
    }

    /// Both values, sente's first.
    pub fn iter(&self) -> std::array::IntoIter<&T, 2> {
        self.into_iter()
    }

    /// Both values with their side, sente's first.
    pub fn into_iter_colors(self) -> std::array::IntoIter<(Color, T), 2> {
        [(Color::Sente, self.sente), (Color::Gote, self.gote)].into_iter()
    }
}

impl<T> Index<Color> for ByColor<T> {
    type Output = T;

    fn index(&self, color: Color) -> &T {
        self.get(color)
    }
}

impl<T> IndexMut<Color> for ByColor<T> {
    fn index_mut(&mut self, color: Color) -> &mut T {
        self.get_mut(color)
    }
}

impl<T: Serialize> Serialize for ByColor<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        [&self.sente, &self.gote].serialize(serializer)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for ByColor<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let [sente, gote] = <[T; 2]>::deserialize(deserializer)?;
        Ok(ByColor { sente, gote })
    }
}

impl<T> IntoIterator for ByColor<T> {
    type Item = T;
    type IntoIter = std::array::IntoIter<T, 2>;

    fn into_iter(self) -> Self::IntoIter {
        [self.sente, self.gote].into_iter()
    }
}

impl<'a, T> IntoIterator for &'a ByColor<T> {
    type Item = &'a T;
    type IntoIter = std::array::IntoIter<&'a T, 2>;

    fn into_iter(self) -> Self::IntoIter {
        [&self.sente, &self.gote].into_iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opposite_swaps_and_round_trips_through_rsshogi() {
        assert_eq!(Color::Sente.opposite(), Color::Gote);
        assert_eq!(Color::Gote.opposite(), Color::Sente);
        for c in Color::BOTH {
            assert_eq!(Color::from_rs(c.to_rs()), c);
        }
        assert_eq!(Color::Gote.to_string(), "gote");
    }

    #[test]
    fn by_color_indexes_maps_and_iterates_sente_first() {
        let mut b = ByColor::new_with(|c| c.name().len());
        assert_eq!((b[Color::Sente], b[Color::Gote]), (5, 4));
        b[Color::Gote] += 10;
        *b.get_mut(Color::Sente) -= 5;
        assert_eq!(b, ByColor { sente: 0, gote: 14 });
        assert_eq!(b.map(|x| x * 2).into_iter().collect::<Vec<_>>(), [0, 28]);
        assert_eq!(b.iter().copied().max(), Some(14));
        let named = b.map_with_color(|c, x| format!("{c}{x}"));
        assert_eq!(named.as_ref().get(Color::Gote).as_str(), "gote14");
        assert_eq!(
            b.into_iter_colors().collect::<Vec<_>>(),
            [(Color::Sente, 0), (Color::Gote, 14)]
        );
    }

    #[test]
    fn serde_writes_a_color_by_name_and_a_by_color_as_sente_then_gote() {
        assert_eq!(serde_json::json!(Color::Gote), "gote");
        let b = ByColor {
            sente: Some(Color::Gote),
            gote: None,
        };
        assert_eq!(serde_json::json!(b), serde_json::json!(["gote", null]));
        let back: ByColor<Option<Color>> = serde_json::from_str(r#"["gote",null]"#).expect("reads");
        assert_eq!(back, b);
        assert_eq!(
            serde_json::from_str::<Color>("\"sente\"").expect("reads"),
            Color::Sente
        );
        assert!(serde_json::from_str::<ByColor<u8>>("[1, 2, 3]").is_err());
    }
}
