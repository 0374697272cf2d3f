"""looplift.states: the library of reversible states (see SPEC §3)."""
