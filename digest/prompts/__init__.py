"""Prompt modules: each holds its instructions and the pydantic models the model must return."""
