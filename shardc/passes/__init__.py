"""Passes over the typed IR."""
