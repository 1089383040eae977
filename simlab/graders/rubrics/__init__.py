"""Rubric and prompt files of simlab's LLM judge (package data, read as text)."""
