"""``--model``: one model, or a mix of models (a base model and its LoRA adapters) with shares.

The forms (pure: parsed and dealt here, checked against the server's list in ``run/setup.py``):

- ``NAME``: every request asks for NAME, as always (a name may hold colons: ``llama3:8b``);
- ``A:0.7,B:0.3``: weights, which must sum to 1 (within 1e-6);
- ``zipf:S:A,B,C``: Zipf's law over the list in its order, the k-th name's weight 1/k^S
  normalized (S > 0: zipf:1.2:A,B,C gives A 0.59, B 0.26, C 0.16).

A mix is a value with a comma (or the ``zipf:`` prefix); each of its entries is NAME:WEIGHT, the
weight after the last colon. What a class of traffic asks for is one ``ModelMix``; each user of
it deals from its own ``ModelDeal``.

**The deal.** Independent draws would leave a user's 25 requests at 0.7 anywhere from about 13
to 22; the deal is low-discrepancy instead: the user's n-th request goes to the model furthest
behind its share of the user's first n requests, each model's count given a seeded lead of
under half a request (seeded by ``--seed``, the process and the user; ties to the earlier
listed). So a user's count of each model stays within about one of its share at every point of
its run (two models: under one, so 25 requests at 0.7 are 17 or 18 of them; four models by
Zipf at most 1.02 over 300 users' 400 requests), a run's total within about one per user, and
the same seed deals the same models; the leads differ by user, so users do not all ask for the
same model at once.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

from sparkload.errors import ConfigError

ZIPF = "zipf"
WEIGHT_SUM_TOLERANCE = 1e-6


@dataclass(frozen=True)
class ModelMix:
    """The models a class of requests asks for, with their shares (one model: share 1)."""

    names: tuple[str, ...]
    weights: tuple[float, ...]

    @property
    def mixed(self) -> bool:
        return len(self.names) > 1

    @property
    def spec(self) -> str:
        """The mix as ``--model`` writes it (weights, so it parses back to the same mix)."""
        if not self.mixed:
            return self.names[0] if self.names else ""
        return ",".join(
            f"{name}:{weight:.12g}" for name, weight in zip(self.names, self.weights, strict=True)
        )

    def deal(self, key: str) -> ModelDeal:
        """The models of one user's requests, its phase seeded by ``key`` (--seed, the process,
        the user)."""
        rng = random.Random(f"models:{key}")
        draws = [rng.random() for _ in self.names]
        mean = sum(draws) / len(draws) if draws else 0.0
        return ModelDeal(self, tuple((draw - mean) / 2 for draw in draws))

    @classmethod
    def single(cls, name: str) -> ModelMix:
        return cls((name,), (1.0,))

    @classmethod
    def parse(cls, value: str, flag: str = "--model") -> ModelMix:
        """``value`` in one of the module's forms; a ConfigError of one line naming ``flag``."""
        value = value.strip()
        if not value:
            return cls((), ())
        if value.startswith(ZIPF + ":"):
            return _zipf(value, flag)
        if "," not in value:
            return cls.single(value)
        names, weights = [], []
        for entry in (part.strip() for part in value.split(",")):
            name, _, weight = entry.rpartition(":")
            if not name:
                raise ConfigError(f"{flag}: {entry!r} has no weight: give NAME:WEIGHT")
            names.append(name)
            weights.append(_weight(flag, entry, weight))
        total = sum(weights)
        if abs(total - 1.0) > WEIGHT_SUM_TOLERANCE:
            raise ConfigError(f"{flag}: the weights of {value!r} sum to {total:.6g}, not 1")
        return cls(*_unique(flag, names, weights))


def _weight(flag: str, entry: str, raw: str) -> float:
    try:
        weight = float(raw)
    except ValueError:
        raise ConfigError(f"{flag}: {entry!r}: {raw!r} is not a weight") from None
    if not 0 < weight <= 1:
        raise ConfigError(f"{flag}: {entry!r}: a weight is above 0 and at most 1")
    return weight


def _zipf(value: str, flag: str) -> ModelMix:
    """``zipf:S:A,B,C``: the k-th name's weight 1/k^S, normalized."""
    _, _, rest = value.partition(":")
    exponent, _, listed = rest.partition(":")
    try:
        s = float(exponent)
    except ValueError:
        raise ConfigError(f"{flag}: {value!r}: {exponent!r} is not Zipf's exponent") from None
    names = [name.strip() for name in listed.split(",") if name.strip()]
    if not 0 < s < math.inf or not names:
        raise ConfigError(f"{flag}: {value!r}: give zipf:S:NAME,NAME,... with S above 0")
    raw = [1 / (rank**s) for rank in range(1, len(names) + 1)]
    return ModelMix(*_unique(flag, names, [w / sum(raw) for w in raw]))


def _unique(
    flag: str, names: list[str], weights: list[float]
) -> tuple[tuple[str, ...], tuple[float, ...]]:
    seen = set()
    for name in names:
        if not name or name in seen:
            raise ConfigError(
                f"{flag}: {name!r} is listed twice" if name else f"{flag}: a name is empty"
            )
        seen.add(name)
    return tuple(names), tuple(weights)


@dataclass
class ModelDeal:
    """One user's models, request by request (the module's deal)."""

    mix: ModelMix
    leads: tuple[float, ...]  # each model's seeded lead on its share, in requests (sum 0)
    counts: list[int] = field(init=False)
    dealt: int = 0

    def __post_init__(self) -> None:
        self.counts = [0] * len(self.mix.names)

    def next(self) -> str:
        """The model of this user's next request."""
        due = self.dealt + 1
        behind = [
            due * w + lead - c
            for w, lead, c in zip(self.mix.weights, self.leads, self.counts, strict=True)
        ]
        pick = max(range(len(behind)), key=behind.__getitem__)
        self.counts[pick] += 1
        self.dealt += 1
        return self.mix.names[pick]
