"""The test guard: test identity, policy, runners."""
