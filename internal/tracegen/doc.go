// Package tracegen writes the text form of trace events from their struct
// definitions, so that a field is named once: in its `trace` struct tag.
// For every marked type of a package it generates the methods of sim.Data
// (TraceKind and AppendText) or, for a type that events list, AppendText
// alone, into one file, zz_trace.go. A generated AppendText is one chain of
// sim.Text calls, a field each, which the compiler inlines: no reflection, no
// allocation.
//
// A type is marked by a directive at the end of its doc comment:
//
//	//trace:kind KindCall api.call
//
// marks an event: the generated file declares the constant KindCall =
// "api.call", which TraceKind returns, and AppendText prints the fields as
// "name=value" separated by spaces. A third word, notrim, keeps the trailing
// space the fields leave (some events always printed it, and the trace hash
// covers it).
//
//	//trace:item
//
// marks a type that events hold in a slice. Its AppendText prints the fields
// one after the other with nothing between them, each after its literal
// prefix: a compact form such as `pod:ns/a@node-1/Running/ready`.
//
// Every field of a marked type carries a tag, so that adding a field forces
// a decision about the trace:
//
//	`trace:"NAME,OPTION,..."`
//
// NAME is the field's key in an event, or its literal prefix in an item
// (possibly empty); "-" leaves the field out. The options are:
//
//	omitempty  print nothing when the value is "", 0, false or an empty slice
//	hex        print an unsigned integer in hexadecimal
//	flag       a bool prints NAME alone when true and nothing when false
//	quote      (items) print a string Go-quoted
//	cut=N      (items, with quote) print at most N bytes of the string, then
//	           its length and FNV-1a hash (sim.AppendQuotedCut); N is a
//	           constant of the package or a number
//	if=COND    print only when COND holds; COND is Field or !Field for a bool
//	           field, or Field==Const; several if options must all hold
//
// How a value prints follows its Go type (or the underlying type of a named
// type of the package): strings as they are, signed integers and unsigned
// integers in decimal, bools as true or false. In an event, a slice of an
// item type prints each element's text followed by a space, with an empty
// NAME. In an item, a []string prints its elements joined by commas.
package tracegen
