import os

# Kokkos 3.4 prints an OMP_PROC_BIND warning at initialize without it.
os.environ.setdefault("OMP_PROC_BIND", "false")
