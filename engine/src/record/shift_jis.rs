//! Shift_JIS (CP932) for `.kif` files: encoding_rs's bytes, found quicker. Its encoder looks
//! every non-ASCII character up in its tables (a kanji by a search through them), and a KIF is
//! mostly the same few dozen characters over and over (full-width digits, kanji numerals, piece
//! names, the header's and the end's words). Those are looked up in encoding_rs once per process,
//! into a sorted table; any other character (in a name, an event, a comment) goes through
//! encoding_rs's encoder as before. Every byte still comes from encoding_rs.

use std::sync::OnceLock;

use encoding_rs::{EncoderResult, SHIFT_JIS};

/// What the KIF writer and rsshogi's header write themselves (a character missing here is only
/// slower, never different).
const VOCABULARY: &str = "１２３４５６７８９一二三四五六七八九十同　歩香桂銀金角飛玉王と杏圭全馬龍竜\
    成不打▲△☗☖手数指消費時間棋戦開始日終局理由先後上下持ち割平その他落左右枚駒番評価値読み筋\
    までで勝負けの投了中断千詰将切れ反則入宣言最大：＝";

/// The vocabulary's two-byte codes, sorted by character.
fn table() -> &'static [(char, [u8; 2])] {
    static TABLE: OnceLock<Vec<(char, [u8; 2])>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table: Vec<(char, [u8; 2])> = VOCABULARY
            .chars()
            .filter_map(|c| {
                let mut buf = [0; 4];
                let (bytes, _, unmappable) = SHIFT_JIS.encode(c.encode_utf8(&mut buf));
                match (unmappable, &*bytes) {
                    (false, &[lead, trail]) => Some((c, [lead, trail])),
                    _ => None,
                }
            })
            .collect();
        table.sort_unstable_by_key(|&(c, _)| c);
        table.dedup_by_key(|&mut (c, _)| c);
        table
    })
}

/// `text` in Shift_JIS, byte for byte as `SHIFT_JIS.encode` writes it, or the first character
/// Shift_JIS has no code for.
pub(super) fn encode(text: &str) -> Result<Vec<u8>, char> {
    let table = table();
    let mut encoder = SHIFT_JIS.new_encoder();
    let mut out = Vec::with_capacity(text.len());
    for c in text.chars() {
        if c.is_ascii() {
            out.push(c as u8);
        } else if let Ok(i) = table.binary_search_by_key(&c, |&(k, _)| k) {
            out.extend_from_slice(&table[i].1);
        } else {
            // Shift_JIS's encoder keeps no state: one character at a time is the same.
            let mut buf = [0; 4];
            let one = c.encode_utf8(&mut buf);
            out.reserve(4);
            match encoder.encode_from_utf8_to_vec_without_replacement(one, &mut out, false) {
                (EncoderResult::InputEmpty, _) => {}
                (EncoderResult::Unmappable(bad), _) => return Err(bad),
                (EncoderResult::OutputFull, _) => {
                    unreachable!("4 bytes of room hold any one character's code")
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// encoding_rs's own answer: the bytes, or the first character it cannot encode.
    fn reference(text: &str) -> Result<Vec<u8>, char> {
        let (bytes, _, unmappable) = SHIFT_JIS.encode(text);
        if unmappable {
            return Err(text
                .chars()
                .find(|c| SHIFT_JIS.encode(c.encode_utf8(&mut [0; 4])).2)
                .expect("an unmappable text has an unmappable character"));
        }
        Ok(bytes.into_owned())
    }

    #[test]
    fn the_bytes_are_encoding_rs_bytes() {
        let texts = [
            VOCABULARY,
            "   4 同　歩(14)   ( 0:00/00:00:00)\n**評価値=-30999\n",
            "先手：ｶﾀｶﾅ ¥ ‾ 漢字の名前 ①\n", // half-width kana, the two remapped signs, CP932's ①
            "まで16手で最大手数\n",
            "",
        ];
        for text in texts {
            assert_eq!(encode(text), reference(text), "{text:?}");
        }
        assert!(
            table().len() > 100,
            "the vocabulary maps: {}",
            table().len()
        );
    }

    #[test]
    fn an_unencodable_character_is_named() {
        for text in ["先手：😀 名前", "後手：ĉ", "✓"] {
            let first = reference(text).expect_err(text);
            assert_eq!(encode(text), Err(first), "{text:?}");
        }
    }
}
