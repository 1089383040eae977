"""Tests of the target agents."""
