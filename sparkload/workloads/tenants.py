"""``--tenants``: several traffic classes in one run, each its own workload (``inputs/tenants.py``).

Every user belongs to one class for the whole run, dealt by its number in the run (Locust's
dispatch order across processes: ``Workload.user_at``), so a class's share of the users is exact
at every level: ``Dealer`` hands user ``i`` to the class furthest behind its quota, whole where
``share x users`` is whole and within one user otherwise, and user ``i``'s class never depends on
how many users follow: a level's users are the run's first C (``Workload.users_by_index``: a
level below an earlier one, as a capacity search's bisection probes, idles the users above C
rather than stopping some), so every level's classes hold their shares. An open loop's arrivals
are dealt the same way by their index in the level's schedule, whichever user takes them. The
user's requests are its class's workload's (built from the run's options changed by the class's
own), planned with the class's own per-user state; each carries its class
(``PlannedRequest.tenant``, the record's ``tenant``) and the model it asks for
(``PlannedRequest.model``, one or a mix the user deals; the run's when the class names none).

A class's sessions count as its workload's do (``contract.py``, "Sessions"): the composite's
``requests_per_session`` is the classes' when they all agree, else None, and every record of a
multi-request session carries its ``turns``, so the master sums the level's count from first
turns whatever the mix.

``--tenant-baselines``: the plan's first levels are each class alone (``baseline_levels``: its
share of the first mix level's users, at least one, smallest first, so that no level removes a
user and the run's numbering of users holds), every user of such a level sending that class's
requests with a state of its own; their records are ``PHASE_BASELINE``, counted by the master as
any level's but kept out of the run's figures (the analysis sets them beside the mix).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from sparkload.config import BY_DEST, changed
from sparkload.config.option import REQUEST, WORKLOAD
from sparkload.errors import ConfigError
from sparkload.inputs.tenants import FLAG, TenantClass, Tenants
from sparkload.records import PHASE_BASELINE, PHASE_MEASURE, WORKLOAD_TENANTS, RequestRecord
from sparkload.transport.tally import Reply
from sparkload.workloads.contract import (
    PlannedRequest,
    Sampling,
    Slot,
    UserState,
    Workload,
    synthetic_flags,
)

if TYPE_CHECKING:
    from sparkload.config import RunOptions

# options a class may not set: they choose the class's workload or the run's plan
_NOT_PER_CLASS = ("workload", "tenants", "quality_probe", "quality_items")


class Dealer:
    """Users to classes by their number in the run: user ``i`` goes to the class whose quota of
    ``i + 1`` users (share x (i + 1)) is furthest above the users it has (the first on a tie).
    The deal is cached as it grows, so a user's class is looked up, not recomputed."""

    def __init__(self, shares: Sequence[float]) -> None:
        self.shares = tuple(shares)
        self._dealt: list[int] = []
        self._counts = [0] * len(self.shares)

    def class_of(self, index: int) -> int:
        while len(self._dealt) <= index:
            users = len(self._dealt) + 1
            behind = [
                share * users - count
                for share, count in zip(self.shares, self._counts, strict=True)
            ]
            chosen = behind.index(max(behind))
            self._counts[chosen] += 1
            self._dealt.append(chosen)
        return self._dealt[index]

    def counts(self, users: int) -> list[int]:
        """How many of the first ``users`` users each class has."""
        dealt = [0] * len(self.shares)
        for index in range(users):
            dealt[self.class_of(index)] += 1
        return dealt


def baseline_levels(shares: Sequence[float], first_level: int) -> list[tuple[int, int]]:
    """(class index, users) of each class's baseline: its users at the first mix level, at
    least one, smallest first (the file's order on a tie)."""
    counts = Dealer(shares).counts(first_level)
    return sorted(((k, max(1, n)) for k, n in enumerate(counts)), key=lambda kn: kn[1])


def class_options(opts: RunOptions, tenant: TenantClass) -> RunOptions:
    """The run's options changed by the class's (its workload and its ``options``, each parsed
    by its row of the option table); a ConfigError of one line naming the class and option."""
    where = f"{FLAG}: class {tenant.name!r}"
    values: dict[str, Any] = {"workload": tenant.workload}
    for name, raw in tenant.options.items():
        dest = str(name).lstrip("-").replace("-", "_")
        row = BY_DEST.get(dest)
        if row is None:
            raise ConfigError(f"{where}: unknown option {name!r}")
        if row.group not in (WORKLOAD, REQUEST) or dest in _NOT_PER_CLASS:
            raise ConfigError(
                f"{where}: option {name!r} is the run's ({row.group}), not a class's: a class "
                "sets only workload and request options"
            )
        try:
            values[dest] = row.value(raw)
        except ConfigError as exc:
            raise ConfigError(f"{where}: {exc}") from None
    settled = changed(opts, **values)
    flags = synthetic_flags(settled)
    if flags:
        raise ConfigError(
            f"{where}: {flags[0]} fits prompts to the target's count, which a class cannot yet: "
            "give the class a --prompts file"
        )
    return settled


@dataclass
class TenantUser(UserState):
    """A user of one class (its index in the file) and its own state in each class's workload
    it sent for (its own class; a baseline's class too)."""

    tenant: int = 0
    inners: dict[int, UserState] = field(default_factory=dict)


@dataclass
class TenantsWorkload(Workload[TenantUser]):
    """One workload per class of ``tenants``, in the file's order, each built from
    ``options[i]`` (the run's options changed by class i's)."""

    name: ClassVar[str] = WORKLOAD_TENANTS
    users_by_index: ClassVar[bool] = True  # a user's class is dealt by its index
    tenants: Tenants
    workloads: tuple[Workload[Any], ...]
    options: tuple[RunOptions, ...]
    alone: tuple[int, ...] = ()  # --tenant-baselines: the class of each of the first levels
    dealer: Dealer = field(init=False)

    def __post_init__(self) -> None:
        self.dealer = Dealer(self.tenants.shares)
        first = self.workloads[0]
        self.max_tokens = first.max_tokens  # the manifest's; each class plans its own lengths
        self.sampling = Sampling()  # each class's body is its own (``RunContext.body_for``)
        self.cache_bust = all(workload.cache_bust for workload in self.workloads)
        per_session = {workload.requests_per_session for workload in self.workloads}
        self.requests_per_session = per_session.pop() if len(per_session) == 1 else None
        self.sessions_may_end_early = any(w.sessions_may_end_early for w in self.workloads)

    @classmethod
    def from_options(cls, opts: RunOptions, synthetic: Any = None) -> Workload[Any]:
        """Not the way in: the classes' workloads are built by ``registry.load_tenant_classes``,
        which knows every workload (this module importing the registry would be a circle)."""
        raise TypeError("the tenants workload is built by workloads.registry.load")

    @property
    def prompt_count(self) -> int:
        return max(workload.prompt_count for workload in self.workloads)

    @property
    def classes(self) -> tuple[TenantClass, ...]:
        return self.tenants.classes

    def describe(self) -> dict:
        return {
            "tenants": self.tenants.source,
            "sha256": self.tenants.sha256,
            "classes": {
                tenant.name: workload.describe()
                for tenant, workload in zip(self.classes, self.workloads, strict=True)
            },
        }

    def manifest(self) -> dict:
        return {
            "name": self.name,
            "max_tokens": self.max_tokens,
            "cache_bust": self.cache_bust,
            "classes": [
                {**tenant.to_dict(), "parameters": workload.manifest()}
                for tenant, workload in zip(self.classes, self.workloads, strict=True)
            ],
            # --tenant-baselines: the class alone at each of the plan's first levels
            "baselines": [self.classes[k].name for k in self.alone],
        }

    def new_user(self, ordinal: int, draw: Callable[[], int]) -> TenantUser:
        return self.user_at(ordinal, ordinal, draw)

    def user_at(self, index: int, ordinal: int, draw: Callable[[], int]) -> TenantUser:
        """User ``index`` of the run, dealt to its class."""
        return TenantUser(ordinal, draw, tenant=self.dealer.class_of(index))

    def class_at(self, user: TenantUser, slot: Slot) -> int:
        """The class a request of ``user`` at ``slot`` is for: a baseline level's class, an open
        loop's arrival's (dealt by its index in the level's schedule, so the classes divide the
        rate exactly), else the user's own."""
        if 0 <= slot.level_index < len(self.alone):
            return self.alone[slot.level_index]
        if slot.arrival is not None and slot.arrival.line is not None:
            return self.dealer.class_of(slot.arrival.line)
        return user.tenant

    def next_request(self, user: TenantUser, slot: Slot) -> PlannedRequest:
        chosen = self.class_at(user, slot)
        planned = self.workloads[chosen].next_request(self._inner(user, chosen), slot)
        tenant = self.classes[chosen]
        return dataclasses.replace(planned, tenant=tenant.name, model=tenant.model)

    def after(
        self, user: TenantUser, planned: PlannedRequest, record: RequestRecord, reply: Reply | None
    ) -> None:
        chosen = next(k for k, c in enumerate(self.classes) if c.name == planned.tenant)
        inner = self._inner(user, chosen)
        self.workloads[chosen].after(inner, planned, record, reply)
        user.unsent, inner.unsent = inner.unsent, 0
        if record.level_index < len(self.alone) and record.phase == PHASE_MEASURE:
            record.phase = PHASE_BASELINE  # a class alone: measured apart from the mix

    def _inner(self, user: TenantUser, chosen: int) -> UserState:
        """The user's state in class ``chosen`` (made at its first request, its prompts the
        process's seeded order folded onto the class's pool), kept in step with what the
        session sets on the user's."""
        inner = user.inners.get(chosen)
        if inner is None:
            workload = self.workloads[chosen]
            count = max(workload.prompt_count, 1)
            draw = user.draw
            inner = user.inners[chosen] = workload.new_user(user.ordinal, lambda: draw() % count)
        inner.planned, inner.stream = user.planned, user.stream
        return inner
