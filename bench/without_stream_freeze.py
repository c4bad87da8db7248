"""The app without the live hub's freezing of open streams (app/live.py), for the
with/without figures of ``make bench-live``'s scale phase
(``--scale-app bench.without_stream_freeze:app``): every full garbage collection then
walks every open stream."""

from app import live
from app.main import app

live.FREEZE_EVERY_S = 0  # this process only: the hub starts no freezer
live.FREEZE_IN_A_FLOOD = 2**62  # and no opening freezes either

__all__ = ["app"]
