package tracegen

// valueKind is how a field's Go type prints.
type valueKind int

const (
	kindString  valueKind = iota + 1 // string, or a named string type
	kindInt                          // a signed integer type
	kindUint                         // an unsigned integer type
	kindBool                         // bool
	kindItems                        // a slice of a //trace:item type
	kindStrings                      // []string
)

// field is one struct field of a marked type, with its tag parsed.
type field struct {
	goName  string
	where   string    // file:line, for errors
	kind    valueKind // how the Go type prints
	conv    string    // conversion the helper needs ("" for none), e.g. "int64"
	typeErr error     // why the Go type cannot print, if it cannot
	skip    bool      // tag "-": not printed

	name      string   // key in an event, literal prefix in an item
	omitEmpty bool     // omitempty
	hex       bool     // hex
	flag      bool     // flag
	quote     bool     // quote
	cut       string   // cut=N
	conds     []string // Go conditions from if=, over the receiver
}

// traceType is one marked type: an event (kindConst set) or an item.
type traceType struct {
	name      string
	where     string
	kindConst string // the constant TraceKind returns; "" for an item
	kind      string // the constant's value, e.g. "api.call"
	noTrim    bool   // keep the trailing space of the last field
	fields    []field
}

// receiver names the receiver in generated methods and in conditions.
const receiver = "e"
