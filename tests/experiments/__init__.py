"""The research record's study scripts (``experiments/scripts/``): their quick paths and the files they read."""
