"""Baseline agents for big2-env (the card-aware network and its trainers arrive in later releases)."""
