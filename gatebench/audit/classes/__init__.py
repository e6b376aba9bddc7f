"""The attack classes of `gatebench audit`, one module each (registry: gatebench.audit.CLASSES)."""
