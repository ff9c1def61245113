"""Learned metric combinations (docs/tuning.md): features, learners (ridge, ULC), nested cross-validation,
model files."""
