// Package levels is a law-exact dynamic sampler of the distribution p* of
// Lemma 1: a draw and an update cost O(1) expected, where the map-exact
// backends pay O(log n) for both. It is package srg's default sampler.
//
// A Sampler holds n keys, all 0 at first (so the first draws are uniform).
// Each SRG step draws an item and gives it a new key:
//
//	s := levels.New(n)
//	err := s.Set(i, a)                        // item i's key: its last gradient norm
//	i, p, err := reweighted.Draw(s, eps, src) // i drawn with probability p = p*ᵢ at the bound ε
//	err = reweighted.DrawBatch(s, eps, src, false, items, probs) // a mini-batch without replacement
//	err = reweighted.SetBatch(s, items, keys)                    // and its new keys
//
// Law-exact means that each draw has exactly the law p*; there is no map
// from a uniform number u to an item (no Sample), which the map-exact
// backends btree, ost, segtree and naive have. Prob, Probs and Solve give
// p*, ρ and λ. Bad input (a negative, NaN or infinite key, an item out of
// range, ε outside [0, 1/n]) is an error wrapping reweighted's sentinels,
// and the Sampler is left as it was. See Example.
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
// from exact integers. Each level also keeps, beside its 64 counts, the
// sums of each block of eight groups of the counts, of count × upper edge
// and of the keys (integers too): an update writes a count and three block
// sums. A group is chosen by bound weight by halving, with no branch on
// the number: the first four block sums against it, then two, then one,
// then the groups of that block the same way (seven sums and seven counts
// read), and a split group's entry of a given index the same way over its
// sub-buckets' counts; other choices by count read eight block sums and at
// most eight counts. A bitmap marks the levels that hold items.
//
// At ε = 0 every key is in the head and λ is the sum of all keys: the
// exact sum (a 2,048-bit integer in units of 2^-1074, formed from the
// levels' exact sums) rounded once to the nearest float. Otherwise Solve
// walks the occupied levels from the largest, with the exact count
// and sum of the keys above, and tests at each level's lower edge t the
// function H(t) = ε·Σ_i max(t, a_i) − t, which decreases and vanishes at
// the cutoff t* = ελ: a key a is among the ρ largest exactly when H(a) ≤ 0.
// The first level whose edge fails holds t*, or lies wholly below it; among
// its groups, a binary search over the exact suffix sums of its blocks of
// eight, then over the groups of one block, finds the first whose lower
// edge fails: the straddling group. Its count c and exact sum
// Σ bracket t* before a key is read (with A the sum above and k the count
// below the group, ε(A + Σ)/(1 − εk) ≤ t* ≤ ε(A + Σ − c·lo)/(1 − ε(k + c))),
// the bracket being about c/n of the group's width. The keys above the
// bracket are in the head, those below in the tail, and the predicate is
// tested only at the keys inside it, by a binary search over the group's
// keys sorted: the sorted copy of the straddling group (a unit) is built
// (by buckets of its keys' leading bits, then by insertion in each: O(c)
// for keys that spread over the group, O(c log c) for keys that crowd
// one another) when a Solve needs it a second time with no write to it in
// between, and kept for the next Solves, a write to it inserting or
// removing one key in place; the first time, one pass over the group
// counts and sums the keys above the bracket and sorts those inside it,
// as after a batch of updates, which usually writes to the straddling
// group. A unit keeps the exact sums of the prefixes that end its blocks
// of 32 keys, on two tiers (super-blocks of 1,024 keys, and blocks within
// them), so that the sum of any prefix costs two additions and at most 31
// more; an insertion or a removal shifts the keys after it (a memmove)
// and changes one sum per block after it, while a key moved within the
// unit, by a Set to a key of the same group and sub-bucket, shifts only
// the keys between its two places and changes the sums of the blocks
// between, up to 31 more and one per super-block after. Every
// test is a float comparison with a proven error bound, and exact (big
// integers from the level sums) inside it, so ρ is exact. The head is then
// the keys at or above one threshold θ, which Prob and Draw compare
// against.
//
// Where t* was. A Solve remembers, in the scratch it used, the level,
// group and sub-bucket where it found t*, and the next one starts there
// when two tests per tier confirm it (the edge of the tier above passes,
// its own fails), else it walks from the top. Its answer is the same, bit
// for bit, whatever it starts from.
//
// Published units. The sampler keeps the last two units built behind
// atomic pointers: a unit is immutable to the reads, which share it and
// may run concurrently; a writer, which runs alone, edits the units of the
// group or sub-bucket it changes (and drops every unit of a group that
// splits or merges), so a published unit always holds the keys as they
// are. The writer, following t* after one Set, sorts a unit at its first
// need, not its second, and it takes a free slot or the oldest one; a
// read that needs a third unit sorts its own and marks the two stale, for
// the next writer to drop (another read may be reading the one it would
// replace), as does the writer after a batch. On lognormal keys at 2^16,
// whose t* leaves its unit every twenty updates or so and comes back, the
// units sorted in 100,000 single steps fell from 5,060 (when a writer
// marked the slots stale too) to 3,008, and the passes over a group made
// before its sort (nearly every sort had one) from 3,573 to none.
// A unit of four keys or fewer (tinyPass) is never sorted: one pass over
// it costs less than a sort and a slot. Check compares the published
// units with the keys. So a draw on keys
// that crowd the cutoff — 999 of 1,000 keys within a relative 10^-7 of
// each other just below it, which no group or sub-bucket can separate —
// does not pass over the 999 keys.
//
// The kept solution. A draw needs the exact ρ and λ, for the p it
// returns (a_i/λ in the head), so a draw after an update must find t*
// again. The writers do it: a read records the bound ε it asked for and
// the count of writes it saw (only when the one recorded is 16 writes
// old: an atomic store waits for the update's stores before it, cache
// misses), and a write that changed keys, if a read came in the last 16
// writes, brings the solution and the proposal table for that ε up to
// date (none otherwise, so that a run of updates with no reads between
// them pays for at most 16 of them, then nothing). After one Set it follows t*:
// the sums above the straddling unit, formed as Solve forms them (the
// levels above in float, each level's sum converted once and kept until a
// Set changes it, the terms then added again in the same order; the
// groups and sub-buckets above exactly), then the bracket search in that
// unit,
// testing first the keys beside the old θ; a key of the unit that passes
// and one that fails fix the level, group and sub-bucket a Solve would
// find (every edge above the first lies above it, every edge below the
// second below); with no key of the unit in the head, the lower edge of
// the next occupied sub-bucket, group or level above must pass, and with
// all of them, the unit's own lower edge must fail. The unit it tries
// first is the one where an estimate of the new t* lies, ε times the
// head's float sum over 1 − ε(n − ρ) with the old key out of the head and
// the new one in it if it lies above the old t*: only the keys between
// the old and the new t* change sides, few at ε = 1/(2n), so the estimate
// lands in the right unit nearly always, while on lognormal keys at 2^10,
// whose groups hold a key or two, t* leaves its unit and the next in more
// than a third of the updates (a Solve and a new table each, before: 5.5%
// of the single steps solve now, 38% before). When t* left that unit, the
// writer tries the next occupied unit in the direction those checks
// showed (a small one passed over, not sorted), then solves from the
// estimate's unit. At ε = 0 it keeps
// the exact sum of the keys and changes it by the old and the new key
// (one exact addition of their difference when both lie in the same two
// of its words, as a rule; else two), then rounds it; and, while Draw chooses levels by
// integer weights (below), their total by two exact additions too, the
// rows left as they were (DrawBatch and AttemptProbs, which read them,
// are served a new table). The table's rows that
// moved (the tail, the straddling group, the rest of its level, the
// levels of the old and the new key) are formed as build forms them, and
// the cumulative sums from the first that moved. When t* left both units,
// or a level of the head emptied or filled, the writer solves from the
// kept location and builds the table.
// The kept solution and table are a Solve's and a new table, bit for bit
// (Check compares them), so every read returns the same answer with them
// or without them; a read whose ε is not the kept one solves as before.
// Draws on keys that do not change, one at a time, pay one Solve in all:
// the sampler's scratch holds the solution and table of its last read,
// named by the sampler, its count of writes and ε.
//
// Split groups. The straddling group can be large: all keys within a
// factor 1 + 2^-6 of each other put n keys in one group, and keys spread
// like |N(0, 1)| put about 0.5% of them in the group at t*. A group of more
// than 512 items, in a level of at least 12 bits, is split into 64
// sub-buckets by the next six bits, each with its count, exact sum and
// slice, and merged again below 128 items (the gap stops a key that moves
// back and forth from splitting and merging each time); Solve walks the
// straddling group's sub-buckets as it searched the groups, and brackets one
// sub-bucket, found by the same binary searches over their sums. An
// update of a split group touches one sub-bucket more.
//
// Rejection. A draw is a solution and its table of at most one row per
// occupied level (the kept ones, the ones its scratch holds, or one Solve
// and one table), and attempts until one accepts. Every item i has a mass
// m_i — its key in the head, t* in the tail, so that m ∝ p* — and a bound
// b_i ≥ m_i; an attempt chooses i with probability b_i/W and accepts it
// with probability m_i/b_i, so it returns i with probability m_i/W. For a
// group wholly in the head, b is the group's upper edge: the row chooses
// the level, and one uniform integer r over the level's bound weight (in
// units of 2^(ℓ−6), the group's count times its bound) chooses the group
// by the block sums, the slot by the quotient of r's remainder by the
// bound, and the acceptance by the rest: every key of the group is at
// least its bound less one unit, so all but the last unit of a slot accept
// at once, and the last with the probability of the key's excess over
// that edge, exactly; so an attempt takes two numbers of src, a third
// once in 65, and accepts with probability at least 64/65. The
// straddling group is proposed whole,
// with b = max(t*, upper edge), and each item is tested against its true
// mass, key or t* as it lies above θ or not: a group whose keys all lie in
// the tail can have its edge above t*, and accepting its items unchecked
// would draw them up to 1 + 2^-6 times too often. Every other tail item
// has b = m = t*: the tail row draws one of them uniformly, accepted at
// once: when they are half the items or more, by uniform items of all n
// tried until one lies below the straddling group's lower edge (a
// compare of its bits; the first try's key read with the entries of
// DrawBatch's chunk, whose cache misses overlap), else through the counts
// and, built in the call's scratch when a tail item is proposed, the
// cumulative counts of the levels below t* (a draw with the kept table,
// which reads may not write, walks down the levels instead). Overall at
// least 64/65 of the attempts accept (AttemptProbs, checked), less only by
// the share, below 10^-300, of the items whose p rounds to 0. The rows
// run from the tail and the lowest level up, and the row is chosen with a
// uniform number that keeps 53 significant bits however small it is, so
// that a level of keys 10^-200 times the largest is drawn with its
// probability, not 0. At ε = 0, when the levels' bound weights shifted to
// the unit of the lowest occupied level sum below 2^62 (keys within some
// 54 binades), Draw takes no row: one uniform integer below that exact
// sum (Lemire's multiply) chooses the level, by a walk down from the top
// (where the mass lies when keys are drawn in proportion to themselves),
// and, shifted to the level's unit, the group, slot and acceptance as
// above; one number of src an attempt, not two. An item whose p, as Prob rounds
// it, is 0 (a subnormal key at ε = 0) is rejected: its exact p* is below
// 2^-1074, and callers divide by p.
//
// DrawBatch draws with one Solve, one table and the flat proposal below
// (or, for the tables it cannot serve, a guide to the table's rows: for
// each of 64 equal parts of the total weight, the first row it can fall
// in, so that a row is found in a step or two, with no branch on the
// random number to mispredict). From 2^18 items (touchMin) on, 32
// attempts at a time: their choices first, from the tables (in cache),
// then the reads of their 32 entries (for a split group,
// after a pass over the counts of its sub-buckets), loads that do not
// depend on each other so that their cache misses overlap, then their
// tests; below, where the sampler stays in the last-level cache, each
// attempt is made whole before the next, those of a direct tail row and
// of the head without a call, and an accepted one goes into the batch at
// once. Either way the head is one proposal, built once a call: the
// groups of the levels in the head (all 64 of each level, those below t*
// or empty weighing 0, or where fewer than half hold items the occupied
// ones only) with their counts times their bounds in the unit of the
// lowest, their exact integer sums cumulated, so that one uniform
// integer below the total chooses the group, the slot and the
// acceptance. A guide maps each of a few hundred equal parts of the total
// to the group holding its least number, so that an attempt finds its
// group in a step or two from its part's, where Draw's attempt reads the
// table's rows for the level and the block sums for the group. That
// integer is the attempt's first word itself: the words
// from x0, the least whose fineUniform reaches the weight of the front
// rows (the tail's, the straddling group's), go to the head, as Draw's
// first number does, and their offset from x0 modulo the total is the
// integer, exactly uniform (the words past the last whole multiple are
// dropped for fresh ones, by Lemire's multiply); so a head attempt takes
// one number of src, not two. A direct tail row's first try comes from
// its word likewise: the words of the tail row from 2^52 on, less 2^52,
// modulo n.
// It needs the head to span at most 32 levels and their weights to fit
// below 2^62 shifted to the lowest; else the table's rows serve. The
// exact per-attempt law of these attempts is checked against the oracle
// beside Draw's (AttemptProbs). Either way the accepted attempts, in
// order, are independent draws. Without replacement it rejects items
// already drawn. With no front rows (ε = 0), once the rejections reach 8
// and the draws accepted, the items drawn leave the proposal (drawLeft):
// a Fenwick tree over its groups of their weights (count − drawn)·bound,
// exact integers, and within a group a uniform slot of those left, the
// slots drawn swapped out as in a Fisher–Yates shuffle (a small hash
// table): O(groups) once, then O(log groups) a draw. Otherwise, after
// 64 + n/16 rejections in the
// batch (about the cost of the tree below), it draws the rest of the batch
// from the explicit conditional distribution: a tree of the sums of p*
// over the items left, in blocks of four, built once in O(n), then
// O(log n) a draw, the sums above a drawn item formed again from their
// parts (none adjusted by a difference). So keys whose mass sits in a few
// items cost a batch at most about twice the better of the two ways: on
// lognormal keys at 2^10 and ε = 0 a batch step cost 42,700 instructions
// an item when each draw after 64 rejections in a row passed over all n
// items, 2,400 with the tree, 1,700 now (gonum's Weighted: 950).
//
// Memory. Per item: its key (8 bytes), its slot (4) and its entry (12: the
// key as two 32-bit halves and the item), plus the groups' spare room: a
// small group's slice comes from pools of 8 to 64 entries, doubling, and a
// larger one climbs a ladder of capacities a quarter apart (each the end
// of an allocator size class) when full; either steps down when three
// eighths full. A large slice a group leaves goes to a pool by rung, of at
// most n/8 + 8192 entries, the largest giving way when it is full, from
// which the next group to need that size (or up to three rungs more)
// takes it; a group that climbs to a rung the pool holds none of makes,
// besides its own, a quarter of the slices of that rung the sampler holds
// (at least two) for the pool, within its bound, since the number of
// large groups wanders and a pool of only what they left runs dry at each
// new high (1.7 bytes an item for lognormal keys at 2^16); a group that
// finds nothing to step down to keeps its slice until it holds 16 times
// its entries, then takes a pooled small slice that holds them twice
// over, or, with none, makes one; an emptied group gives its slice back.
// Each rung's list in the pool has room for every slice of that rung the
// sampler holds, so that giving one back never grows it. So the groups
// hold at most about 16 times their entries
// (or 64 each), and with the pool the memory is O(n) whatever the
// history; a group that kept its largest slice for good would hold the
// sum of its sizes' high-water marks, which keys that drift, as gradient
// norms do, push up for hundreds of epochs. The pools of small slices
// start with room for 2,048 + n/64 entries each (0.75 bytes an item for
// the four), each slice its own object, and a slice given back to a full
// pool goes to the collector: a sampler's first fill passes through
// more slices of each small size than it ends with, and pools carved in
// blocks kept that peak for good (6 bytes an item for lognormal keys at
// 2^16). A pool that runs dry after it gave slices to the collector keeps
// room for its refill more from then on, so that its bound follows how
// far the number of groups of its size wanders, not the first fill's
// peak. A level costs 3.6 kB, a split group's sub-buckets 3 kB (their
// slices go back to the pools when it merges). Bytes counts what the
// allocator hands out but for the rounding of small objects to their
// size class, and is held between the heap that dropping the sampler
// frees and 2% less (TestBytesMatchesHeap at 2^16: 0.2% less;
// TestBytesMatchesHeapAfterReads at 2^10, with the reads' units: 1.2%;
// at n = 64, 1.4%). After 10·n random updates at n = 2^16 (TestMemory,
// up to 40 bytes an item, at 2^20 with -long): 35.2 bytes per item for
// Exp(1) keys, and 37.4 for the lognormal keys of the benchmarks, which
// spread over more binades and hold more levels. The per-level sums and
// level pointers span the levels the keys have reached, with room for 16
// more on either side (a few kB), not all 2,098 levels (84 kB), so that
// New holds 9.1 kB besides its 16 bytes an item below 256 items (and 14
// kB more from 256 on: four levels in reserve); a sampler's fixed cost is
// then its levels, 3.6 kB each, one for each binade its keys span: 150
// bytes an item for 1,000 Exp(1) keys, 232 for lognormal ones. At n = 2^20, 34.9 for Exp(1)
// keys and 39.1 for lognormal ones, whose 841 split groups hold their
// items in sub-buckets of a few entries each, in slices 57% full, and
// each keeps an array for a merge to come: a pooled one of 149 entries
// when the pool has one, else the one it had before it split (some
// 600); against 16 for gonum's sampleuv.Weighted and 33–40 for package
// btree. Emptied levels go to a free list for any exponent, small
// slices go back to their pools, new levels come eight at a time, and a
// dry pool of small slices makes 512 entries' worth, or, when it runs
// dry again, a quarter of the slices it made so far, up to 2,048
// entries, so that the numbers of groups of each size, which wander, run
// a pool dry more and more rarely. Updates in steady state mostly
// allocate nothing, even while the keys still reach new exponents and
// new group sizes now and then: keys redrawn from one law allocate in
// 9 of 10,000 batch steps once warm, when a pool passes its high
// (TestStationaryKeysAllocateRarely, 100 seeds), and the kit's
// ZeroAllocs and TestZeroAllocs count none, the latter also right after
// collections. Not never: the pools, bounded to keep the memory O(n),
// hold what the highs of the groups' numbers so far need, and keys that
// drift set new highs, or take a large group to a size none had, and the
// group allocates a slice, or its pool a refill. An SRG-like loop of
// DrawBatch and SetBatch on drifting keys at n = 2^13 allocates in 3 of
// 16,000 batch steps once warm (TestSRGLoopAllocatesRarely, 8 streams):
// a few kB now and then, where an update costs half a microsecond. SRG
// on the paper's four sets (batches of 128, seed 1) allocates in 0 to 7
// of epochs 21 to 50 and 2 to 5 of epochs 51 to 200 (srg's
// TestEpochAllocationsSets).
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
// sentinels in the contract's order (Set on a sampler of no items:
// ErrEmpty), and a rejected call changes nothing and uses no randomness.
// The read methods (Len, Key, Solve, Prob, Probs, Draw, DrawBatch,
// AttemptProbs) may run concurrently: their scratch is the sampler's own
// if no other call holds it (so that it survives the collections that
// empty a sync.Pool), else from a sync.Pool, and the only shared state
// they write is which units are published, through atomic pointers, a
// flag and a word, and the bound they asked for and that they read, two
// atomic words; a published unit and the kept solution are read-only until
// the next write (the race detector runs the tests); Set, SetBatch and
// Load may not run concurrently with anything.
//
// Saving and copying. MarshalBinary writes the keys in the module's one
// format (reweighted.AppendState) and, in its extension, the layout: the
// items of each group in slot order and which groups are split, on which
// the draws for a given source depend. UnmarshalBinary restores both, so a
// run saved and resumed draws, bit for bit, what one that never stopped
// draws; a state without the layout (another backend's) is laid out as
// Load lays it out. Clone copies the arrays and groups, with their spare
// room, and starts its units, kept solution, pools and scratch afresh.
//
// # Costs
//
// Set: O(1), a swap-remove and an append, a count and two block sums
// written in each, or, to a normal key of the same group and sub-bucket,
// the entry rewritten in its slot and three sums; then, if a read came since the last write, the upkeep
// of the kept solution: O(occupied levels above t*) float additions and
// O(1) integer ones for the sums above the straddling unit, the bracket
// search in the unit (two searches out from the head's old edge, a few
// probes each, and O(1) tests expected, two when the head's edge did not
// move), and the table's rows that moved;
// or, when t* left the unit, a Solve from there and a new table. An
// insertion into or removal from a published unit of c keys moves the
// keys after it and changes c/32 block sums (c ≤ 512 unless the keys
// cannot split); a key moved within it, the keys and blocks between its
// two places and c/1024 super-block sums. Solve:
// O(occupied levels from the top down to t*) float tests, unless the
// level, group and sub-bucket of the last one still hold t*;
// in the straddling level at most 16 integer additions and six tests; in
// a split group as many more; in the straddling unit two
// binary searches and the tests at the keys inside the bracket, O(1)
// expected, once its sorted copy exists: O(c) to build for keys that
// spread over the unit, O(c log c) for keys that crowd one another. An exact
// decision, when a key or an edge lies within a relative 10^-13 or so of
// t*, adds big integer products over the occupied levels. A draw: the
// kept or held solution, or one Solve and one table, then O(1) expected.
// Probs: O(n). Load: O(n).
//
// # Where the time goes
//
// On a 2-core machine (levels and gonum's sampleuv.Weighted in one run,
// medians over eight interleaved rounds), one SRG step (Step at ε =
// 1/(2n): a Set, then a draw) costs 1.7 times gonum's Reweight and Take at
// n = 2^16 with Exp(1) keys, 2.1 with lognormal keys, and 2.1 to 2.4 at
// 2^20; at ε = 0, 0.56 to 0.98 times gonum's up to 2^16 and 1.7 at 2^20.
// Gonum needs no Solve; here a draw needs none either, but the Set before
// it pays the kept solution's upkeep, about three fifths of the step's
// 3,370 instructions on Exp(1) keys at 2^16 (gonum: 1,340): the bracket
// search in the straddling unit, the table's rows, the sums above t*; a
// fifth is the draw. A batch step (128 draws without replacement, then
// their 128 new keys) shares one Solve and costs per item 0.42 (Exp(1)
// keys) and 0.53 (lognormal) times gonum's 128 Take and 128 Reweight in
// the same run at 2^16, 0.67 and 0.77 at 2^20 (levels, whose structures
// span more cache lines than gonum's heap, slows more than gonum when
// other jobs take the caches). In SRG on mushrooms (all in cache) the
// sampler costs some 600 instructions an example (DrawBatch 250, SetBatch
// 353), against SGD's whole iteration of 946: an attempt's choices (one
// random number, the group from the flat proposal's guide, the slot), the
// read of its entry, its test and p, the proposal's build
// once a batch, and the update, which most often moves the item to
// another group of its level (move), or, a sixth of the time, to
// another occupied level (cross). Without replacement,
// the draws of items already in the batch cost attempts too: SRG makes
// 1.01 to 1.03 attempts a draw on the paper's four sets (epochs 1 to 10
// at the constant step), a draw of an item already in the batch 0.3%
// (ijcnn1) to 2.3% (mushrooms) of them. At 2^20 the
// profile is memory: the read of a proposed slot (for a split group,
// after its sub-buckets' counts) and Set's writes at the
// end of the new key's group and swap-remove from the old one; the
// attempts of a chunk and the touches of a batch overlap those misses,
// which is most of what they gain; below 2^18 items, where the sampler
// stays in the last-level cache, SetBatch reads only the items' keys and
// slots ahead of its updates. Keys crowding t* in a bucket
// that cannot split cost an update that moves a key out of the bucket or
// into it a move of the keys after it, and one that moves a key within
// it a move of the keys between its two places: a draw after a one-ulp
// update costs 1.3 to 1.4 times one on Exp(1) keys with 999 near-ties at
// n = 1000, and 1.3 to 1.7 times with half of 2^16 keys within a relative
// 10^-9 of t* (a bucket of 32,768; 3.3 to 5 times before a key moved
// within its unit).
package levels
