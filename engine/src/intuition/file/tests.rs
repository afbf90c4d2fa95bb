use super::*;
use crate::intuition::model::tests::learn;
use std::collections::BTreeMap;

#[test]
fn model_file_round_trips_and_is_the_same_for_any_game_order() {
    let mut model = learn(LearnOptions::default(), &[0, 1, 2]);
    model.provenance = Provenance {
        corpus: vec!["data/corpus/test.txt".into()],
        split_seed: Some(7),
        test_share: Some(0.2),
        command: Some("council-learn candidates ...".into()),
        notes: BTreeMap::from([("date".to_string(), "2026-01-01".to_string())]),
    };
    let bytes = model.to_bytes();
    let back = Model::from_bytes(&bytes).expect("reads its own file");
    assert_eq!(back, model);
    assert_eq!(back.to_bytes(), bytes);
    let mut shuffled = learn(LearnOptions::default(), &[2, 0, 1]);
    shuffled.provenance = model.provenance.clone();
    assert_eq!(shuffled.to_bytes(), bytes);
    // The empty model too.
    let empty = Model::new(LearnOptions { winner_only: true });
    assert_eq!(Model::from_bytes(&empty.to_bytes()), Ok(empty));
    // The header line is JSON that says what the file is.
    let header_end = bytes.iter().position(|&b| b == b'\n').expect("header line");
    let header: serde_json::Value =
        serde_json::from_slice(&bytes[..header_end]).expect("JSON header");
    assert_eq!(header["format"], "council-candidates");
    assert_eq!(header["version"], 1);
    assert_eq!(header["hash"], "fnv1a-64");
    assert_eq!(header["learn"]["min_legal_moves"], 6);
    assert_eq!(header["tables"][0]["name"], "full.prev1");
    assert_eq!(header["tables"][0]["pairs"], 6);
}

fn with_header(bytes: &[u8], edit: impl FnOnce(&mut serde_json::Value)) -> Vec<u8> {
    let end = bytes.iter().position(|&b| b == b'\n').expect("header line");
    let mut header: serde_json::Value = serde_json::from_slice(&bytes[..end]).expect("JSON");
    edit(&mut header);
    let mut out = serde_json::to_vec(&header).expect("JSON");
    out.extend_from_slice(&bytes[end..]);
    out
}

#[test]
fn model_file_refuses_another_version_format_or_a_damaged_body() {
    let bytes = learn(LearnOptions::default(), &[0, 1, 2]).to_bytes();
    let v2 = with_header(&bytes, |h| h["version"] = 2.into());
    let err = Model::from_bytes(&v2).expect_err("version 2");
    assert_eq!(err, ModelFileError::Version { found: "2".into() });
    assert!(err.to_string().contains("reads version 1 only"), "{err}");
    let other = with_header(&bytes, |h| h["format"] = "council-similarity".into());
    assert_eq!(
        Model::from_bytes(&other),
        Err(ModelFileError::Format("council-similarity".into()))
    );
    assert_eq!(
        Model::from_bytes(b"no newline here"),
        Err(ModelFileError::NoHeader)
    );
    assert!(matches!(
        Model::from_bytes(b"{not json\n"),
        Err(ModelFileError::Header(_))
    ));
    let threshold = with_header(&bytes, |h| h["learn"]["min_legal_moves"] = 10.into());
    assert!(matches!(
        Model::from_bytes(&threshold),
        Err(ModelFileError::Header(m)) if m.contains("min_legal_moves")
    ));
    // Cut short, and one byte changed: both caught before any table is read.
    let cut = &bytes[..bytes.len() - 3];
    assert!(matches!(
        Model::from_bytes(cut),
        Err(ModelFileError::Body(m)) if m.contains("the header says")
    ));
    let mut flipped = bytes.clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 0x01;
    assert!(matches!(
        Model::from_bytes(&flipped),
        Err(ModelFileError::Body(m)) if m.contains("FNV-1a")
    ));
}
