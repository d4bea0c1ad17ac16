"""Transformations as rule tables (JAX's `interpreters/`): each module owns a
table keyed by primitive that the primitives' files register their rules into,
and the pure type functions those rules share. The drivers that walk programs
with these tables sit above the primitives (`shardc/autodiff.py`)."""
