"""How a read is run: the caller's access checked, then the use case, in one unit of work."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from app.db.database import Database, UnitOfWork
from app.services.auth import Access, check_access

T = TypeVar("T")


async def read(
    db: Database,
    access: Access,
    work: Callable[[UnitOfWork], T],
    *,
    snapshot: bool = False,
) -> T:
    """Check ``access``, then run ``work``, in one unit of work; its result
    (``snapshot``: see ``Database.run``)."""

    def unit(uow: UnitOfWork) -> T:
        check_access(uow, access)
        return work(uow)

    return await db.run(unit, snapshot=snapshot)
