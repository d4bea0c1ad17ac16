"""`shardc.scipy.spatial`: JAX 0.10.2's `jax.scipy.spatial` (its `transform` module, imported on demand:
`import shardc.scipy.spatial.transform`, as JAX's is not imported by `import jax`)."""
