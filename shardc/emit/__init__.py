"""Emission: typed IR → StableHLO text with Shardy (`sdy`) sharding annotations."""
