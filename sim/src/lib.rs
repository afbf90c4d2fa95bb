//! Monte Carlo models of `../shared/spec/models.md`: the random-walk game length, the council
//! and the simple majority model.
