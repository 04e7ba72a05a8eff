"""P1 example 2: tensegrity form-finding by dynamic relaxation (being written)."""
