"""Checkpoints of the project's files: a private git object store, the turns that use it, rewind."""
