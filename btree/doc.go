// Package btree is the cache-conscious backend of reweighted: a counted
// B+-tree over the items in canonical order (key descending, equal keys by
// index ascending), whose nodes carry item counts and key sums, searched as
// in Algorithms 3 and 4 of the paper. It is the fastest map-exact backend.
//
// A Sampler holds n keys, all 0 at first. Each SRG step draws an item and
// gives it a new key:
//
//	s := btree.New(n)
//	err := s.Set(i, a)                        // item i's key: its last gradient norm
//	i, p, err := s.Sample(eps, u)             // the item whose interval of Algorithm 4 holds u ∈ [0, 1)
//	i, p, err = reweighted.Draw(s, eps, src)  // the same with u drawn from src
//	rho, lambda, err := s.Solve(eps)          // ρ and λ of Lemma 1
//	err = reweighted.DrawBatch(s, eps, src, false, items, probs) // a mini-batch without replacement
//
// Map-exact means that every map-exact backend returns the same item for
// the same keys, ε and u. Bad input is an error wrapping reweighted's
// sentinels, and the Sampler is left as it was. See Example.
//
// # Design
//
// A binary tree such as package ost pays one cache miss per level once the
// tree outgrows the cache: about 20 at n = 2^20 for each descent. A B+-tree
// with fanout 16 has 5 or 6 levels at that size, and the top few, a few
// hundred kilobytes, stay in cache; a descent misses on about two nodes
// (the lowest inner node and the leaf) and the item → leaf map. The price
// is in-cache work: each level scans up to 16 entries where a binary tree
// makes one comparison, and an update shifts entries inside a node and
// recomputes its prefix sums.
//
// Leaves hold up to 16 items of consecutive ranks: their keys, their items
// and the sum of their keys (208 bytes, four cache lines). Inner nodes hold
// up to 16 children with, per child, the prefix count of items, the key sum
// and the prefix of those sums, and the key and item of the child's last
// (smallest) item, which serve as separators (584 bytes). All nodes live in
// two flat slices linked by int32 indices, with free lists, so the garbage
// collector never scans them and n is limited to 2^31 − 1. A slice indexed
// by item gives the leaf that holds it, so Set finds its item without a
// search; the slot inside the leaf is a scan of 16 int32s.
//
// Every node but the root stays at least half full: a deletion borrows
// from a sibling or merges with it, an insertion splits a full node. So
// memory stays bounded whatever the history. A bulk load (New, Load) packs
// the leaves full, random SRG steps settle at about 10 items per leaf, and
// New reserves the node slices for leaves 60% full, so that they do not
// grow, copying megabytes, during the first steps: about 33 bytes per item
// from New on, and still at most 40 after 10·n steps (TestMemory,
// BenchmarkSteps), against 32 for ost and 16 for gonum's Weighted; 33.5
// after 10·n steps in batches of 128 at n = 2^16, UpdateBatch's scratch
// included (4 bytes per node and about 70 per entry of the largest batch).
// When the tree needs more nodes than it ever had, the slices grow by an
// eighth.
//
// # Sums
//
// No sum is ever adjusted by a difference: a leaf's total is recomputed from
// its keys, in four interleaved chains of additions; an inner node's prefix
// sums are recomputed from the changed child on, by additions of the
// children's sums, which are copied up from the children. Every partial sum
// handed to the driver is therefore formed by additions of non-negative
// floats (the driver's error bound needs that) and depends only on the keys
// now in the tree and its shape. Integer counts are updated by differences,
// which is exact.
//
// # Searches
//
// Cut (ρ) tests the predicate at the last item of each child, with the rank
// and partial sum the prefix counts and sums give, by a binary search inside
// each node, then inside the leaf over partial sums formed on the fly; the
// predicate holds on a prefix of ranks, so one descent finds ρ. SelectSum,
// Select and the search for an item's new leaf count, without branches, the
// entries that precede the target: the loads of a node do not depend on
// each other, so its cache lines arrive together, and nothing is
// mispredicted.
//
// # Batches
//
// The tree implements both fast paths of package driver.
//
// SelectSums carries a chunk of 32 draws down the tree level by level: it
// first touches the node each draw goes to at that level, loads that do not
// depend on each other, so that their cache misses overlap, then counts
// the nodes' prefix sums as SelectSum does, with the same float sums, so
// that every answer is SelectSum's.
//
// UpdateBatch moves all the items of a batch before it recomputes any
// entry above the leaves. It routes every new key to its leaf first, by
// the separators of the tree as it is, 32 keys at a time level by level
// (routing is monotone in the key, so items put in the leaves they are
// routed to end in canonical order whatever the order of the puts); then
// moves each item, splitting a full leaf at once and chaining the pieces;
// then refills the leaves left below half full; and last, level by level,
// reads again only the entries whose subtree changed, and the prefix sums
// from the first of them. Each touched node is recomputed once per batch
// instead of once per change, and the misses of a batch's descents
// overlap. The tree it leaves has the keys and the order Update's would
// have, not always its shape: a batch may empty a leaf, which then leaves
// the tree, where Update would have borrowed for it.
//
// # Costs
//
// New and Load cost O(n) after a sort; Set costs O(log n), the item moving
// inside its leaf, to another leaf, or with a split, borrow or merge (about
// one Set in five at random keys); Solve, Sample and Prob cost O(log n). No
// method allocates in steady state: nodes come from the free lists, and the
// slices grow only when the tree needs more nodes than it ever had. The read
// methods write nothing, so they may run concurrently.
//
// # Where the time goes
//
// At n = 2^20, profiled with
//
//	go test ./bench -run '^$' -bench 'Step$/impl=btree/n=1048576' -cpuprofile cpu.out
//
// a step (Sample at ε = 1/(2n), then Set) takes 1.9–2.4 µs on a 2-core
// machine, about the same at ε = 0, against 0.5 µs for gonum's
// sampleuv.Weighted (Take, then Reweight; 16 bytes per item, no ε floor, no
// order): 3.8–4.5 times as long, where 2 was the aim. The tree
// spends its time waiting for memory: Sample's descent misses on the
// lowest inner node and on the leaf (the top levels stay cached); Set's
// descent to the new leaf (findPath, the largest entry of the profile)
// misses twice more, and the item → leaf map once; the walks up both paths
// and the prefix sums they recompute (16 additions per level) run in cache.
// Cut costs little: ρ's path is the same from step to step and stays
// cached, and the driver's exact decision no longer shows, its error bound
// coming from the tree's height. Two bare descents of a binary tree in
// breadth-first order take 3.1 µs at this size (bench.BenchmarkDescent):
// the fanout buys back more than the in-node scans cost. At n = 2^10, all
// in cache, a step costs 0.6 µs, two thirds of it in Set, against 0.14 µs
// for gonum and 0.4 µs for package ost; its profile is flat: counting the
// separators, the chains of additions of the prefix sums, the scans for a
// slot or a child, the shifts inside a leaf.
//
// A batch step (BenchmarkBatchStep: 128 draws without replacement, then
// their 128 new keys) costs per item 0.56 µs at n = 2^16 and 1.3 µs at
// 2^20, against 0.24 and 0.42 µs for gonum's Take and Reweight (count 6).
// At 2^16 the profile is in-cache work: UpdateBatch takes two thirds of
// it (the routing's separator counts, a quarter of that; the walk up, four
// tenths: a leaf total for each leaf changed, and for each node above one,
// a scan of its children for the changed ones and its entries' prefix sums,
// about four node refreshes per item), SelectSums a seventh, the driver's
// dedup, old keys and sort the rest. A binary search without branches inside the nodes, for the
// routing and for SelectSums, a quarter of the instructions of the counts,
// measured no faster: the counts are not what bounds it, the latency of
// the node and leaf reads (the tree is twice the size of a core's L2) is.
// At 2^20 the misses the batch cannot overlap dominate: the walk up's
// reads of nodes the routing touched long before, and the tail draws'
// Select, one descent each.
//
// What would go further: an implicit sum tree inside each inner node, so
// that a fix-up touches log2(16) entries instead of up to 16; smaller inner
// entries (float32 separators with an exact tie-break) to fit a node in
// fewer cache lines; and leaves laid out in rank order in memory, so that
// the exact decision's walk and Load stream instead of hopping.
package btree
