#!/usr/bin/env python3
"""A sampler of the law kind for samplercheck, with a bias to plant.

Protocol version 2 (or 1), law kind. Standard library only. It keeps the
keys, rho, lambda and p* of refsampler.py (exact, in integer arithmetic)
and draws with random.choices from the weights p*: with replacement
independently, without by ordered successive sampling (each item from p*
restricted to the items not drawn yet; once those all have p* = 0, which
only eps = 0 allows, uniformly among them, reported with p = 0).

With --tail-bias X the items of the tail (rank above rho, p* = eps) are
drawn as if their p* were (1 + X) times larger, while prob still answers
p*: the bug the χ² tests miss at small X and the mass tests catch.

Check it with:  go run ./cmd/samplercheck -- python3 cmd/samplercheck/testdata/lawsampler.py
"""

import itertools
import json
import random
import sys

from refsampler import Error, Sampler, fmt, parse_float

TAIL_BIAS = 0.0


class LawSampler(Sampler):
    def weights(self, eps):
        """p* of every item, and the weights the draws use."""
        key = ("weights", eps)
        if key not in self.solved:
            rho = self.solve(eps)[0]
            rank = self.sorted()[2]
            probs = [self.prob(i, eps) for i in range(self.n)]
            w = [p * (1 + TAIL_BIAS) if rank[i] > rho else p for i, p in enumerate(probs)]
            self.solved[key] = (probs, w, list(itertools.accumulate(w)))
        return self.solved[key]

    def draw(self, eps, m, replace, seed):
        self.check_eps(eps)
        if not replace and m > self.n:
            raise Error("ErrBatch", f"{m} draws without replacement from {self.n} items")
        probs, w, cum = self.weights(eps)
        rng = random.Random(seed)
        if replace:
            items = rng.choices(range(self.n), cum_weights=cum, k=m)
        else:
            items, left = [], set(range(self.n))
            for _ in range(m):
                pool = sorted(left)
                weights = [w[i] for i in pool]
                if sum(weights) > 0:
                    i = rng.choices(pool, weights=weights)[0]
                else:
                    i = pool[int(rng.random() * len(pool))]
                items.append(i)
                left.remove(i)
        return items, [probs[i] for i in items]


def answer(s, req):
    op = req["op"]
    if op == "kind":
        return '{"kind":"law"}'
    if op == "set":
        s.set(req["i"], parse_float(req["a"]))
        return "{}"
    if op == "solve":
        eps = parse_float(req["eps"])
        s.check_eps(eps)
        return '{"rho":%d,"lambda":%s}' % (s.solve(eps)[0], fmt(s.lam(eps)))
    if op == "prob":
        i, eps = req["i"], parse_float(req["eps"])
        if s.n == 0:
            raise Error("ErrEmpty", "no items")
        if not 0 <= i < s.n:
            raise Error("ErrIndex", f"index {i} not in [0, {s.n})")
        s.check_eps(eps)
        return '{"p":%s}' % fmt(s.prob(i, eps))
    if op == "draw":
        items, probs = s.draw(parse_float(req["eps"]), req["m"], req["replace"], req["seed"])
        return '{"items":[%s],"probs":[%s]}' % (",".join(map(str, items)), ",".join(map(fmt, probs)))
    raise ValueError(f"unknown op {op!r}")


def main():
    global TAIL_BIAS
    if sys.argv[1:2] == ["--tail-bias"]:
        TAIL_BIAS = float(sys.argv[2])
    s = LawSampler(0)
    for line in sys.stdin:
        req = json.loads(line)
        if req["op"] == "new":
            s = LawSampler(req["n"])
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
