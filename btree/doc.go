// Package btree is the fast backend of reweighted: a counted B+-tree.
package btree
