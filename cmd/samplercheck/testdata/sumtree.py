#!/usr/bin/env python3
"""A sum tree for prioritised replay that samplercheck passes.

Protocol version 2, weighted kind: one JSON request a line on standard
input, one JSON answer a line on standard output. Standard library only.

The tree of the tutorials (see sumtree_replay.py), with two changes that
make it exact. Every node holds the exact sum of its leaves as an integer
count of 2^-1074, the smallest float, which every float weight is a whole
number of; a parent is recomputed from its two children, so no change is
ever added to a rounded sum. And the capacity is padded to a power of two,
so that the leaves, at capacity + i, lie left to right in index order
under every node. Find descends on exact integers: it returns the item i
with S_{i-1} <= u*S < S_i, which an item of weight 0 never satisfies.

Check it with:  go run ./cmd/samplercheck -- python3 cmd/samplercheck/testdata/sumtree.py
With --only find (or --only draw) it answers the other request with
ErrUnsupported, as a program that does only one of them does.
"""

import bisect
import itertools
import json
import math
import random
import sys

SCALE = 1074  # a float is an integer multiple of 2^-SCALE
MAX_SUM = 2 ** 831 << SCALE  # reweighted.MaxSum, scaled


class Error(Exception):
    """An error of the protocol: its name, and a message."""

    def __init__(self, name, message):
        super().__init__(message)
        self.name = name


def scaled(a):
    """The float a >= 0 as the integer a * 2^1074."""
    num, den = a.as_integer_ratio()
    return num * ((1 << SCALE) // den)


def parse_float(x):
    """A float of the protocol: a JSON number, or "NaN", "+Inf", "-Inf"."""
    if isinstance(x, str):
        return {"NaN": math.nan, "+Inf": math.inf, "-Inf": -math.inf}[x]
    return float(x)


def fmt(x):
    """A float as the protocol writes it: shortest round-trip repr."""
    if math.isnan(x):
        return '"NaN"'
    if math.isinf(x):
        return '"+Inf"' if x > 0 else '"-Inf"'
    return repr(x)


class SumTree:
    def __init__(self, n):
        self.n = n
        self.cap = 1
        while self.cap < n:
            self.cap *= 2
        self.tree = [0] * (2 * self.cap)  # exact sums, scaled; leaves at cap + i
        self.keys = [0.0] * n
        self.prefix = None  # S_0, ..., S_{n-1} for draws, until a set

    def set(self, i, a):
        if self.n == 0:
            raise Error("ErrEmpty", "no items")
        if not 0 <= i < self.n:
            raise Error("ErrIndex", f"index {i} not in [0, {self.n})")
        if not (0 <= a <= 2.0 ** 831):  # false for NaN
            raise Error("ErrKey", f"weight {a}")
        big = scaled(a)
        if self.tree[1] - self.tree[self.cap + i] + big > MAX_SUM:
            raise Error("ErrKey", f"weight {a} would make the sum exceed MaxSum")
        self.keys[i] = a + 0.0  # -0 is stored as 0
        self.prefix = None
        k = self.cap + i
        self.tree[k] = big
        while k > 1:
            k //= 2
            self.tree[k] = self.tree[2 * k] + self.tree[2 * k + 1]

    def check(self):
        if self.n == 0 or self.tree[1] == 0:
            raise Error("ErrEmpty", "no items, or every weight 0")

    def total(self):
        self.check()
        return self.tree[1] / (1 << SCALE)  # int / int is correctly rounded

    def find(self, u):
        """The item i with S_{i-1} <= u*S < S_i, exactly."""
        num, den = u.as_integer_ratio()
        x = num * self.tree[1]  # u*S*den: descend on x against sums times den
        k = 1
        while k < self.cap:
            left = self.tree[2 * k] * den
            if x < left:
                k = 2 * k
            else:
                x -= left
                k = 2 * k + 1
        return k - self.cap

    def draw(self, rng, m):
        """m independent draws: u = k/2^53 from rng.random(), then the item
        find(u) returns, by a binary search over the exact prefix sums
        (the item i with S_{i-1} <= u*S < S_i, as find), which is faster
        in Python than m descents."""
        if self.prefix is None:
            self.prefix = list(itertools.accumulate(self.tree[self.cap:self.cap + self.n]))
        total, prefix = self.tree[1], self.prefix
        # u*S < S_i  <=>  floor(k*S / 2^53) < S_i.
        return [bisect.bisect_right(prefix, (int(rng.random() * 2**53) * total) >> 53) for _ in range(m)]


UNSUPPORTED = set()  # find or draw, with --only


def answer(s, req):
    op = req["op"]
    if op == "kind":
        if req["version"] != 2:
            sys.exit(f"sumtree.py speaks protocol version 2, not {req['version']}")
        return '{"kind":"weighted"}'
    if op == "set":
        s.set(req["i"], parse_float(req["a"]))
        return "{}"
    if op == "total":
        return '{"total":%s}' % fmt(s.total())
    if op in UNSUPPORTED:
        raise Error("ErrUnsupported", f"{op} is not done by this program")
    if op == "find":
        u = parse_float(req["u"])
        s.check()
        if not (0 <= u < 1):
            raise Error("ErrUniform", f"u {u} not in [0, 1)")
        return '{"i":%d}' % s.find(u)
    if op == "draw":
        s.check()
        rng = random.Random(req["seed"])
        return '{"items":[%s]}' % ",".join(map(str, s.draw(rng, req["m"])))
    raise ValueError(f"unknown op {op!r}")


def main():
    if sys.argv[1:2] == ["--only"]:
        UNSUPPORTED.update({"find", "draw"} - {sys.argv[2]})
    s = SumTree(0)
    for line in sys.stdin:
        req = json.loads(line)
        if req["op"] == "new":
            s = SumTree(req["n"])
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
