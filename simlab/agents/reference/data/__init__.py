"""Package data of the reference agent: flights, world tables and defect presets."""
