#!/usr/bin/env python3
"""The sum tree of prioritised experience replay, as the tutorials write it.

Protocol version 2, weighted kind. Standard library only. samplercheck
FAILS this program, on purpose: it is the example of what the checker
catches in a sum tree in the wild.

The tree: 2*capacity nodes, the leaf of item i at capacity + i, each
parent the float sum of its children, kept up to date by adding the
change of a leaf to each of its ancestors; the total is the root; find
descends from the root, going left when the mass left to place is below
the left child's sum. Its bugs, all of them common in replay buffers:

- the sums drift: adding changes to rounded sums leaves a parent that is
  not the sum of its children (set a weight to 1e20 and back to 1 among
  small weights, and the total is far from the sum of the weights);
- find can return an item of weight 0, through that drift or rounding at
  u next to 1 (the mass left to place passes every sum on the way down);
- with a capacity that is not a power of two, the leaves under the root
  are not in index order, and find maps u to the wrong items.

The argument checks (errors of the protocol, MaxSum) are made exactly, as
the protocol asks, so that what fails is the tree.

Check it with:  go run ./cmd/samplercheck -- python3 cmd/samplercheck/testdata/sumtree_replay.py
With --pow2 the capacity is padded to a power of two, as some tutorials
do: the leaves are then in index order, and what fails is the drift.
"""

import json
import math
import random
import sys

SCALE = 1074
MAX_SUM = 2 ** 831 << SCALE  # reweighted.MaxSum, scaled


class Error(Exception):
    """An error of the protocol: its name, and a message."""

    def __init__(self, name, message):
        super().__init__(message)
        self.name = name


def scaled(a):
    """The float a >= 0 as the integer a * 2^1074, for the MaxSum check."""
    num, den = a.as_integer_ratio()
    return num * ((1 << SCALE) // den)


def parse_float(x):
    if isinstance(x, str):
        return {"NaN": math.nan, "+Inf": math.inf, "-Inf": -math.inf}[x]
    return float(x)


def fmt(x):
    if math.isnan(x):
        return '"NaN"'
    if math.isinf(x):
        return '"+Inf"' if x > 0 else '"-Inf"'
    return repr(x)


class SumTree:
    def __init__(self, capacity):
        self.capacity = capacity
        self.tree = [0.0] * (2 * capacity)
        self.exact = 0  # the exact sum, scaled: only for the MaxSum check

    def update(self, i, priority):
        idx = self.capacity + i
        change = priority - self.tree[idx]
        self.tree[idx] = priority
        while idx > 1:
            idx //= 2
            self.tree[idx] += change

    def total(self):
        return self.tree[1]

    def find(self, value):
        idx = 1
        while idx < self.capacity:
            left = 2 * idx
            if value < self.tree[left]:
                idx = left
            else:
                value -= self.tree[left]
                idx = left + 1
        return idx - self.capacity


POW2 = False  # --pow2: the capacity padded to a power of two


class Sampler:
    def __init__(self, n):
        self.n = n
        capacity = n
        if POW2:
            capacity = 1
            while capacity < n:
                capacity *= 2
        self.tree = SumTree(capacity)

    def set(self, i, a):
        if self.n == 0:
            raise Error("ErrEmpty", "no items")
        if not 0 <= i < self.n:
            raise Error("ErrIndex", f"index {i} not in [0, {self.n})")
        if not (0 <= a <= 2.0 ** 831):
            raise Error("ErrKey", f"weight {a}")
        old = self.tree.tree[self.tree.capacity + i]
        exact = self.tree.exact - scaled(old) + scaled(a)
        if exact > MAX_SUM:
            raise Error("ErrKey", f"weight {a} would make the sum exceed MaxSum")
        self.tree.exact = exact
        self.tree.update(i, a + 0.0)

    def check(self):
        if self.n == 0 or self.tree.exact == 0:
            raise Error("ErrEmpty", "no items, or every weight 0")

    def find(self, u):
        i = self.tree.find(u * self.tree.total())
        return min(max(i, 0), self.n - 1)


def answer(s, req):
    op = req["op"]
    if op == "kind":
        if req["version"] != 2:
            sys.exit(f"sumtree_replay.py speaks protocol version 2, not {req['version']}")
        return '{"kind":"weighted"}'
    if op == "set":
        s.set(req["i"], parse_float(req["a"]))
        return "{}"
    if op == "total":
        s.check()
        return '{"total":%s}' % fmt(s.tree.total())
    if op == "find":
        u = parse_float(req["u"])
        s.check()
        if not (0 <= u < 1):
            raise Error("ErrUniform", f"u {u} not in [0, 1)")
        return '{"i":%d}' % s.find(u)
    if op == "draw":
        s.check()
        rng = random.Random(req["seed"])
        items = [s.find(rng.random()) for _ in range(req["m"])]
        return '{"items":[%s]}' % ",".join(map(str, items))
    raise ValueError(f"unknown op {op!r}")


def main():
    global POW2
    POW2 = sys.argv[1:2] == ["--pow2"]
    s = Sampler(0)
    for line in sys.stdin:
        req = json.loads(line)
        if req["op"] == "new":
            s = Sampler(req["n"])
            out = "{}"
        else:
            try:
                out = answer(s, req)
            except Error as e:
                out = json.dumps({"error": e.name, "message": str(e)})
        sys.stdout.write(out + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
