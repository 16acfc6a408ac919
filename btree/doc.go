// Package btree is the cache-conscious backend of reweighted: a counted
// B+-tree over the items in canonical order (key descending, equal keys by
// index ascending), whose nodes carry item counts and key sums, searched as
// in Algorithms 3 and 4 of the paper.
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
// BenchmarkSteps), against 32 for ost and 16 for gonum's Weighted. When the
// tree needs more nodes than it ever had, the slices grow by an eighth.
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
// the tree itself spends its time waiting for memory. Half an SRG step is
// the driver's exact decision of ρ: about once in 10^4 steps a key lies
// within the driver's error bound, relative (n + 8)·2^-52, of its cutoff,
// and the driver then sums the ρ ≈ 7·10^5 largest keys exactly, through
// Walk: about 15 ms, 20 ns a key, one cache miss per leaf (Walk loads the
// leaves three ahead so that the misses overlap). The rest is the descent of
// Sample (a miss on the lowest inner node and on the leaf, then one on the
// item → leaf map for the key), the descent to the new leaf of Set (two more
// misses), and the walk up of both paths, in cache by then. Cut costs little:
// ρ's path is the same from step to step and stays cached. Without the
// exact fallback (ε = 0) a step costs about two bare descents of a binary
// tree laid out breadth first (bench.BenchmarkDescent): the fanout buys back
// what the in-node scans cost. At n = 2^10, all in cache, a step costs a
// tenth as much, two thirds of it in Set; its profile is flat: counting the
// separators, the chains of additions of the prefix sums, the scans for a
// slot or a child, the shifts inside a leaf.
package btree
