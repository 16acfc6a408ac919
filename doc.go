// Package reweighted defines the dynamic importance sampler at the heart of
// Stochastic Reweighted Gradient Descent (SRG, El Hanchi and Stephens, 2021),
// and the contract that every backend of this module satisfies.
//
// A sampler keeps a key for each of n items (in SRG, each example's last
// gradient norm) and draws items with the variance-minimising probabilities
// p* of Lemma 1, every item keeping at least ε. SRG's inner loop, on the
// default backend:
//
//	s := levels.New(n)                        // n items, all keys 0: the first draws are uniform
//	i, p, err := reweighted.Draw(s, eps, src) // item i, drawn with probability p
//	x -= alpha / (float64(n) * p) * grad(i)   // the unbiased importance-weighted step
//	err = s.Set(i, norm(grad(i)))             // item i's new key
//
// DrawBatch and SetBatch do the same for a mini-batch. Bad input is an
// error wrapping one of the sentinels (ErrKey, ErrIndex, ErrEps, …), and
// the sampler is left as it was. See Example_srg and Example_batch;
// package srg runs the whole of SRG.
//
// # Design
//
// The sections below are the contract every backend keeps: the problem,
// the order of the items, the two kinds of sampler, and how a uniform
// number or a source of randomness becomes an item.
//
// # The problem
//
// A Sampler holds n non-negative keys a_1, …, a_n (in SRG, the last seen
// gradient norm of each example). For a lower bound ε in [0, 1/n] it samples
// from
//
//	p* = argmin over Δ(ε) of Σ a_i²/p_i,   Δ(ε) = {p in the simplex : p_i ≥ ε},
//
// the distribution that minimises the variance of an importance-weighted
// gradient estimate while giving every example at least ε. Lemma 1 of the
// paper solves it in closed form. Sort the keys in decreasing order, a_π(1) ≥
// … ≥ a_π(n), let S(r) be the sum of the r largest keys and
//
//	λ(r) = S(r) / (1 − (n − r)ε),   ρ = max{ r : a_π(r) ≥ ε·λ(r) }.
//
// Then p*_i = a_i/λ(ρ) for the ρ largest keys and p*_i = ε for the rest.
// The predicate a_π(r) ≥ ε·λ(r) holds on a prefix of ranks (Proposition 1),
// so ρ can be found by binary search or by one descent of a search tree.
// Every backend decides it exactly, as for real numbers: in floating point
// with a proven error bound, and exactly (an exact sum of the keys) in the
// rare case that the float comparison falls inside that bound. So all
// backends lay out the same intervals of Algorithm 4, whatever the keys.
// When every key is 0 the distribution is uniform, and ρ = n, λ = 0.
// When ε == 1/float64(n) the bound is read as exactly 1/n and p* is uniform.
//
// # The canonical order
//
// Ranks count from 1 in the order "key descending, equal keys by index
// ascending". Every backend uses this order, so for the same keys, ε and u
// all backends return the same item, up to floating point within 1e-9 of an
// interval's edge.
//
// # Three kinds of sampler
//
// Distribution is what the first two kinds share: the keys, Solve (the
// exact ρ and λ) and Prob. A Sampler is map-exact: it also has Sample,
// Algorithm 4's map from a uniform number to an item, and every Sampler
// returns the same item for the same keys, ε and u. A LawSampler is
// law-exact: it has no such map, and draws with its own use of a source of
// randomness; its draws have exactly the law p*, and its Solve, Prob and
// errors are those of a Sampler. Draw, DrawBatch, SetBatch and Step take
// either kind, and so do package srg, the kit (samplertest.Run for the map,
// samplertest.RunLaw for the law) and the benchmarks.
//
// The third kind, Weighted, is Lemma 1 at ε = 0 in index order: plain
// proportional sampling, p_i = a_i / Σa, the sum trees of prioritised
// experience replay. It has Len, Key and Set with the key rules and errors
// above, a Total within a relative 1e-9 of the exact sum, and a Find
// (WeightedFinder: u to the item whose exact interval [S_{i−1}, S_i)/S in
// index order holds u, within 1e-9 of u at an edge), a Draw from its own
// source (WeightedDrawer), or both; never an item of weight 0, and ErrEmpty
// when every weight is 0. Every Distribution of the module is one through
// Proportional, by Draw only: the map-exact backends map u in canonical
// order, not index order. samplertest.RunWeighted checks the kind against
// the exact index-order sums.
//
// # From a uniform number to an item
//
// Sample(ε, u) maps u in [0, 1) to an item as Algorithm 4 of the paper does.
// The first c = 1 − (n − ρ)ε of the unit interval is shared by the ρ largest
// keys in proportion to their keys: u < c selects the item of smallest rank
// whose partial sum S(rank) exceeds λu, so an item with p = 0 is never
// drawn, nor one whose p rounds to 0 (a subnormal key, small against the
// sum of the keys): the p Sample returns is never 0, and callers may divide
// by it. The rest of the interval is cut into n − ρ slices of width ε, the
// first belonging to rank n and the last to rank ρ + 1.
//
// # Drawing with a source of randomness
//
// Draw maps one number of a math/rand/v2 Source to an item. DrawBatch draws a
// mini-batch of m items, either independently (with replacement) or by
// ordered successive sampling without replacement, as the paper's
// experiments do: each item from p* restricted to the items not yet drawn.
// Every item either returns is the item Sample returns for the uniform
// number consumed for it, with the same p. Both work over any Sampler and
// allocate nothing in steady state; a Sampler may implement BatchSampler to
// map many uniform numbers at once (the module's backends do, through
// package driver, with one Solve per batch).
//
// # Changing many keys
//
// SetBatch changes the keys of a mini-batch at once, all or nothing: every
// index and key is checked, and the sum after the whole batch against
// MaxSum, before anything changes. A backend may do it faster than one Set
// per key (BatchSetter, which every backend of the module implements);
// any other Sampler gets a correct fallback.
//
// # One step
//
// Step(s, ε, i, a, src) is SRG's single-sample step: it sets the key of the
// item just used, then draws the next, with the result of Set then Draw,
// bit for bit, and checks every argument, ε included, before anything
// changes. A backend may fuse the two (Stepper; levels has one); any other
// gets Set then Draw.
//
// # Backends
//
// The implementations live in sibling packages, each a New(n) with all
// keys 0. The map-exact ones return a Sampler:
//
//   - btree, a counted B+-tree with nodes of 16 in flat slices: O(log n)
//     per operation and the fewest cache misses of the four;
//   - ost, the order-statistic red-black tree of the paper (Algorithms 3
//     and 4): O(log n);
//   - segtree, a crit-bit trie over the keys' bit patterns, whose shape
//     depends only on the keys: O(depth);
//   - naive, a sorted slice with prefix sums (Algorithm 2): O(n) per Set,
//     the reference.
//
// Each is an index structure turned into a Sampler by package driver, which
// holds the arithmetic of the paper once; a backend written elsewhere does
// the same (see driver's package doc). The law-exact one returns a
// LawSampler:
//
//   - levels, keys grouped by exponent and leading bits with exact integer
//     sums, drawn by rejection: O(1) expected per draw and per update, one
//     Solve per batch; the default of package srg.
//
// Each also has Load(keys), which replaces all keys at once with the checks
// of Set, Probs(ε, dst), the whole vector p* in O(n), and Check, which
// verifies its invariants. Package samplertest checks each of the three
// kinds against an exact rational oracle.
package reweighted
