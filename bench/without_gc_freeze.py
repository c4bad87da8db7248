"""The app without ``gc.freeze()`` at start (app/main.py), for the with/without rows of
``make bench``: every full garbage collection then walks what startup built."""

import gc

from app.main import app

gc.freeze = lambda: None  # this process only: the app calls it in its lifespan

__all__ = ["app"]
