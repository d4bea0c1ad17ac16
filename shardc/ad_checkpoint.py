"""`shardc.ad_checkpoint`, as `jax.ad_checkpoint`: rematerialization (`checkpoint` / `remat`),
naming values for policies (`checkpoint_name`) and the policies themselves."""
from .ops.remat import checkpoint, checkpoint_name, checkpoint_policies, remat

__all__ = ["checkpoint", "checkpoint_name", "checkpoint_policies", "remat"]
