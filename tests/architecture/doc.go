// Package architecture holds tests of the code's dependency rules (STYLE.md "Layout shows the architecture").
package architecture
