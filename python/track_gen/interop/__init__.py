"""Interop with other frameworks (``track_gen.interop.torch``)."""
