// Package reconcile tests the reconciler against a local stack of its own (it acts on every turn of the table, so
// it must not share one with other tests).
package reconcile
