// Package levels is a law-exact dynamic sampler of the distribution p* of
// Lemma 1: a draw and an update cost O(1) expected, where the map-exact
// backends pay O(log n) for both.
//
// # Design
//
// A tree keeps the keys in order so that Algorithm 4 can map a uniform
// number to the item of the right rank. Drawing with the law p* needs no
// order, only masses that can be changed in O(1) and chosen from in O(1):
// here, groups of keys of nearly the same size, and rejection inside a
// group.
//
// Groups. A key is a whole number v of units of 2^-1074. Its level is the
// position of v's leading bit (the float's exponent, or for a subnormal key
// its bit length: a virtual exponent), and its group inside the level the
// next six bits; the float's bit pattern gives both with a few shifts. So a
// group holds keys within a ratio of 1 + 2^-6 of each other (or one value,
// for the levels of fewer than six bits), and its upper edge bounds every
// key in it by that ratio. Zero keys form a list of their own. A group is
// an unordered slice of entries (key, item): an item joins at the end and
// leaves by a swap with the last entry, and the item → slot map follows;
// so Set is O(1) whatever the keys.
//
// Exact sums. Within one level every key is a whole number of the level's
// unit (2^(ℓ−52) units for a normal key), below 2^53, so each group and
// level keeps the exact sum of its keys as a 128-bit integer, changed by
// exact integer additions and subtractions. No float sum is ever kept and
// adjusted by differences, which drifts: every float sum is formed afresh
// from exact integers. Each
// level also keeps two Fenwick trees over its 64 groups, of the counts and
// of count × upper edge (integers too), so that a group is chosen in six
// steps and updated in six. A bitmap marks the levels that hold items.
//
// Solve walks the occupied levels from the largest, with the exact count
// and sum of the keys above, and tests at each level's lower edge t the
// function H(t) = ε·Σ_i max(t, a_i) − t, which decreases and vanishes at
// the cutoff t* = ελ: a key a is among the ρ largest exactly when H(a) ≤ 0.
// The first level whose edge fails holds t*, or lies wholly below it; among
// its groups, a binary search over their exact suffix sums finds the first
// whose lower edge fails: the straddling group. Its count c and exact sum Σ bracket t* before a key
// is read (with A the sum above and k the count below the group,
// ε(A + Σ)/(1 − εk) ≤ t* ≤ ε(A + Σ − c·lo)/(1 − ε(k + c))), the bracket
// being about c/n of the group's width; one pass over the group puts each
// key in the head, the tail, or between, and only the keys between are
// sorted and tested one by one. Every test is a float comparison with a
// proven error bound, and exact (big integers from the level sums) inside
// it, so ρ is exact. The head is then the keys at or above one threshold θ,
// which Prob and Draw compare against.
//
// Split groups. The straddling group can be large: all keys within a
// factor 1 + 2^-6 of each other put n keys in one group, and keys spread
// like |N(0, 1)| put about 0.5% of them in the group at t*. A group of more
// than 512 items, in a level of at least 12 bits, is split into 64
// sub-buckets by the next six bits, each with its count, exact sum and
// slice, and merged again below 128 items (the gap stops a key that moves
// back and forth from splitting and merging each time); Solve walks the
// straddling group's sub-buckets as it walked the groups, and brackets one
// sub-bucket. An update of a split group touches one sub-bucket more.
//
// Rejection. A draw is one Solve, one table of at most one row per
// occupied level, and attempts until one accepts. Every item i has a mass
// m_i — its key in the head, t* in the tail, so that m ∝ p* — and a bound
// b_i ≥ m_i; an attempt chooses i with probability b_i/W and accepts it
// with probability m_i/b_i, so it returns i with probability m_i/W. For a
// group wholly in the head, b is the group's upper edge: the row chooses
// the level, the Fenwick tree the group, a uniform slot the item, and the
// acceptance is at least 64/65. The straddling group is proposed whole,
// with b = max(t*, upper edge), and each item is tested against its true
// mass, key or t* as it lies above θ or not: a group whose keys all lie in
// the tail can have its edge above t*, and accepting its items unchecked
// would draw them up to 1 + 2^-6 times too often. Every other tail item
// has b = m = t*: the tail row draws one of them uniformly (through the
// count Fenwick trees), accepted at once. Overall at least 64/65 of the
// attempts accept. The rows run from the tail and the lowest level up, and
// the row is chosen with a uniform number that keeps 53 significant bits
// however small it is, so that a level of keys 10^-200 times the largest
// is drawn with its probability, not 0. An item whose p, as Prob rounds
// it, is 0 (a subnormal key at ε = 0) is rejected: its exact p* is below
// 2^-1074, and callers divide by p.
//
// DrawBatch draws with one Solve and one table, 32 attempts at a time:
// their choices first, from the tables and Fenwick trees (in cache), then
// the reads of their 32 entries, loads that do not depend on each other so
// that their cache misses overlap, then their tests; the accepted attempts,
// in order, are independent draws. Without replacement it
// rejects items already drawn and, after 64 rejections in a row, draws
// from the explicit conditional distribution in O(n), as
// reweighted.DrawBatch does. When a few items hold most of the mass (the
// lognormal keys of the benchmarks at small n), the rejections and that
// fallback dominate.
//
// Memory. Per item: its key (8 bytes), its slot (4) and its entry (12: the
// key as two 32-bit halves and the item), plus the groups' spare room: a
// small group's slice comes from pools of 8 to 64 entries, doubling, and a
// larger one grows by a quarter. A level costs about 4.8 kB, a split
// group's sub-buckets about 3 kB. About 36 bytes per item at n = 2^16
// after 10·n random updates of Exp(1) keys (TestMemory) and 33 at 2^20;
// keys spread over more binades hold more levels: 45 and 40 for the
// lognormal keys of the benchmarks (bytes/item); against 16 for gonum's
// sampleuv.Weighted and 33–40 for package btree. Emptied levels stay with
// their exponent (up to 32), small slices go back to their pools, new
// levels come eight at a time and pooled slices in blocks of 512 entries,
// so that updates in steady state allocate nothing, even while the keys
// still reach new exponents and new group sizes now and then (the kit's
// ZeroAllocs).
//
// # Guarantees
//
// Law-exact: Draw and DrawBatch have the same law p* as the map-exact
// backends, not the same item for the same u; there is no Sample. The law
// is exact up to the rounding of the proposal weights and of the
// inversion that chooses a row, as Algorithm 4 is up to its own: each
// item's probability per attempt, divided by the acceptance, is within a
// relative 10^-12 of the exact p*_i whenever p*_i ≥ 10^-300
// (AttemptProbs, checked against the rational oracle on every boundary
// class).
//
// Everything else is the contract's: Solve returns the exact ρ (decided as
// for real numbers) and λ; Prob and Probs return the same p*, bit for bit,
// and the p a draw returns is Prob's, never 0 (but for DrawBatch without
// replacement once every item left has p* = 0); ε == 1/float64(n) is read
// as exactly 1/n; the MaxSum check is exact (integer sums, in O(1) unless
// the keys come within a factor n of MaxSum); errors are the root's
// sentinels in the contract's order, and a rejected call changes nothing
// and uses no randomness. The read methods (Len, Key, Solve, Prob, Probs,
// Draw, DrawBatch, AttemptProbs) write nothing shared, their scratch coming
// from a sync.Pool, and may run concurrently; Set, SetBatch and Load may
// not run concurrently with anything.
//
// # Costs
//
// Set: O(1), a swap-remove and an append, six steps in each of two Fenwick
// trees. Solve: O(occupied levels) float tests; in the straddling level 64
// integer additions and six tests; in a split group 64 more tests; and a
// pass over the c keys of the straddling group or sub-bucket (c ≤ 512),
// of which only those inside the bracket are sorted. An exact decision,
// when a key or an edge lies within a relative 10^-13 or so of t*, adds
// big integer products over the occupied levels. A draw: one Solve, then
// O(1) expected. Probs: O(n). Load: O(n).
//
// # Where the time goes
//
// On a 2-core machine shared with other jobs (go test ./bench -bench
// 'Step|BatchStepKeys', 4 runs, medians, load 3–5), one SRG step (Draw at
// ε = 1/(2n), then Set) took 0.65, 1.5 and 2.1 µs at n = 2^10, 2^16 and
// 2^20, 4.6 to 5.9 times gonum's sampleuv.Weighted (Take, then Reweight),
// which needs no Solve: a draw here pays a whole Solve, a walk over the
// occupied levels (a few dozen for Exp(1) and lognormal keys) with a float
// test at each, the straddling group's bracket and the table, before an
// O(1) attempt. A batch step (128 draws without replacement, then their
// 128 new keys) shares one Solve and took per item 0.31 µs at 2^16 and
// 0.56 µs at 2^20 for Exp(1) keys, 1.13 and 1.07 times gonum's 128 Take and
// 128 Reweight, and 1.3 times for lognormal keys; at 2^10, 1.9 to 2.3
// times, the few heaviest items being drawn again and again and rejected.
// At 2^20 the profile is memory: the read of a proposed slot (a third of
// the time),
// the writes at the end of the new key's group and the swap-remove from
// the old one; the attempts of a chunk and the touches of a batch overlap
// those misses, which is most of what they gain.
package levels
