// Package levels is a law-exact dynamic sampler of the distribution p* of
// Lemma 1, with O(1) expected time per draw and per update.
package levels
