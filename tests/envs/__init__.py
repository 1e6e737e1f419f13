"""The envs tests."""
