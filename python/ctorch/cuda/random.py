"""torch.cuda.random: the per-device Philox generators' seeds and states."""
from . import (  # noqa: F401
    manual_seed, manual_seed_all, seed, seed_all, initial_seed, get_rng_state, set_rng_state, get_rng_state_all,
    set_rng_state_all,
)
