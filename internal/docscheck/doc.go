// Package docscheck holds the test that keeps docs/ honest: every
// configuration key, CLI flag, Action input and output, finding kind and
// manifest field the code defines must be named in docs/*.md or README.md.
// It reads the code with go/ast rather than importing it, so it checks
// what is written whatever shape the packages take.
package docscheck
