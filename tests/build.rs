//! The build's version, commit and dirty flag for `--version` and the files this crate's
//! programs write (see `council_stamp::emit`).

fn main() {
    council_stamp::emit();
}
