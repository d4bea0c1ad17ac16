"""Front-end: tracing Python functions into the typed IR."""
