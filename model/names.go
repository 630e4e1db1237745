package model

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// Name and label syntax, as k8s.io/apimachinery/pkg/util/validation.
const (
	dns1123LabelFmt      = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
	dns1123SubdomainFmt  = dns1123LabelFmt + "(\\." + dns1123LabelFmt + ")*"
	qualifiedNameFmt     = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
	labelValueFmt        = "(" + qualifiedNameFmt + ")?"
	dns1123LabelMaxLen   = 63
	dns1123SubdomainMax  = 253
	qualifiedNameMaxLen  = 63
	labelValueMaxLen     = 63
	dns1123LabelErrMsg   = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character"
	dns1123SubdomainErr  = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"
	qualifiedNameErrMsg  = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
	labelValueErrMsg     = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
	totalAnnotationLimit = 256 * 1024
)

var (
	dns1123LabelRe     = regexp.MustCompile("^" + dns1123LabelFmt + "$")
	dns1123SubdomainRe = regexp.MustCompile("^" + dns1123SubdomainFmt + "$")
	qualifiedNameRe    = regexp.MustCompile("^" + qualifiedNameFmt + "$")
	labelValueRe       = regexp.MustCompile("^" + labelValueFmt + "$")
)

// regexError formats a syntax error the way apimachinery does: the message,
// examples, and the regular expression used.
func regexError(msg, fmtStr string, examples ...string) string {
	if len(examples) == 0 {
		return msg + " (regex used for validation is '" + fmtStr + "')"
	}
	msg += " (e.g. "
	for i := range examples {
		if i > 0 {
			msg += " or "
		}
		msg += "'" + examples[i] + "', "
	}
	return msg + "regex used for validation is '" + fmtStr + "')"
}

func maxLenError(n int) string { return fmt.Sprintf("must be no more than %d characters", n) }

// nameSyntax is one of apimachinery's syntax rules for a name or value: a
// maximum length and a regular expression, with the message and examples
// the regular expression's error gives.
type nameSyntax struct {
	maxLen   int
	re       *regexp.Regexp
	fmt, msg string
	examples []string
}

// The syntaxes of IsDNS1123Label, IsDNS1123Subdomain, IsValidLabelValue and
// IsDNS1035Label.
var (
	dns1123LabelSyntax     = nameSyntax{dns1123LabelMaxLen, dns1123LabelRe, dns1123LabelFmt, dns1123LabelErrMsg, []string{"my-name", "123-abc"}}
	dns1123SubdomainSyntax = nameSyntax{dns1123SubdomainMax, dns1123SubdomainRe, dns1123SubdomainFmt, dns1123SubdomainErr, []string{"example.com"}}
	labelValueSyntax       = nameSyntax{labelValueMaxLen, labelValueRe, labelValueFmt, labelValueErrMsg, []string{"MyValue", "my_value", "12345"}}
	dns1035LabelSyntax     = nameSyntax{dns1123LabelMaxLen, dns1035LabelRe, dns1035LabelFmt, dns1035LabelErrMsg, []string{"my-name", "abc-123"}}
)

// check returns the problems with value: too long, and not matching.
func (n nameSyntax) check(value string) []string {
	var errs []string
	if len(value) > n.maxLen {
		errs = append(errs, maxLenError(n.maxLen))
	}
	if !n.re.MatchString(value) {
		errs = append(errs, regexError(n.msg, n.fmt, n.examples...))
	}
	return errs
}

// IsDNS1123Label returns the problems with value as an RFC 1123 label
// (container names, namespaces): lower-case alphanumerics and '-', starting
// and ending alphanumeric, at most 63 characters. No problems means valid.
func IsDNS1123Label(value string) []string { return dns1123LabelSyntax.check(value) }

// IsDNS1123Subdomain returns the problems with value as an RFC 1123
// subdomain (the names of pods, nodes, ReplicaSets, Deployments, Leases):
// dot-separated labels, at most 253 characters.
func IsDNS1123Subdomain(value string) []string { return dns1123SubdomainSyntax.check(value) }

// IsQualifiedName returns the problems with value as a label or annotation
// key: an optional DNS subdomain prefix and '/', then a name of at most 63
// alphanumerics, '-', '_' or '.', starting and ending alphanumeric.
func IsQualifiedName(value string) []string {
	var errs []string
	parts := strings.Split(value, "/")
	var name string
	switch len(parts) {
	case 1:
		name = parts[0]
	case 2:
		var prefix string
		prefix, name = parts[0], parts[1]
		if len(prefix) == 0 {
			errs = append(errs, "prefix part must be non-empty")
		} else if msgs := IsDNS1123Subdomain(prefix); len(msgs) != 0 {
			for _, m := range msgs {
				errs = append(errs, "prefix part "+m)
			}
		}
	default:
		return append(errs, "a qualified name "+regexError(qualifiedNameErrMsg, qualifiedNameFmt, "MyName", "my.name", "123-abc")+
			" with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')")
	}
	if len(name) == 0 {
		errs = append(errs, "name part must be non-empty")
	} else if len(name) > qualifiedNameMaxLen {
		errs = append(errs, "name part "+maxLenError(qualifiedNameMaxLen))
	}
	if !qualifiedNameRe.MatchString(name) {
		errs = append(errs, "name part "+regexError(qualifiedNameErrMsg, qualifiedNameFmt, "MyName", "my.name", "123-abc"))
	}
	return errs
}

// IsValidLabelValue returns the problems with value as a label value: empty,
// or at most 63 alphanumerics, '-', '_' or '.', starting and ending
// alphanumeric.
func IsValidLabelValue(value string) []string { return labelValueSyntax.check(value) }

// validateLabelName checks a label key at path.
func validateLabelName(k, path string) ErrorList {
	var errs ErrorList
	for _, msg := range IsQualifiedName(k) {
		errs = append(errs, invalid(path, k, msg))
	}
	return errs
}

// validateLabelValue checks a label value at path.
func validateLabelValue(v, path string) ErrorList {
	var errs ErrorList
	for _, msg := range IsValidLabelValue(v) {
		errs = append(errs, invalid(path, v, msg))
	}
	return errs
}

// ValidateLabels checks every key and value of labels, in key order, as
// metav1validation.ValidateLabels; errors are reported at path.
func ValidateLabels(labels map[string]string, path string) ErrorList {
	var errs ErrorList
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		errs = append(errs, validateLabelName(k, path)...)
		errs = append(errs, validateLabelValue(labels[k], path)...)
	}
	return errs
}

// ValidateAnnotations checks annotation keys (qualified names, compared in
// lower case) and the total size (at most 256 KiB), as
// apimachinery's ValidateAnnotations.
func ValidateAnnotations(annotations map[string]string, path string) ErrorList {
	var errs ErrorList
	total := 0
	for _, k := range slices.Sorted(maps.Keys(annotations)) {
		for _, msg := range IsQualifiedName(strings.ToLower(k)) {
			errs = append(errs, invalid(path, k, msg))
		}
		total += len(k) + len(annotations[k])
	}
	if total > totalAnnotationLimit {
		errs = append(errs, &FieldError{Type: ErrorTypeTooLong, Field: path, BadValue: "",
			Detail: fmt.Sprintf("may not be more than %d bytes", totalAnnotationLimit)})
	}
	return errs
}

// DNS-1035 labels (Service names) and IANA service names (named ports), as
// apimachinery's IsDNS1035Label and IsValidPortName.
const (
	dns1035LabelFmt    = "[a-z]([-a-z0-9]*[a-z0-9])?"
	dns1035LabelErrMsg = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character"
	portNameMaxLen     = 15
)

var (
	dns1035LabelRe   = regexp.MustCompile("^" + dns1035LabelFmt + "$")
	portNameCharsRe  = regexp.MustCompile("^[-a-z0-9]+$")
	portNameLetterRe = regexp.MustCompile("[a-z]")
)

// IsDNS1035Label returns the problems with value as an RFC 1035 label (the
// names of Services): lower-case alphanumerics and '-', starting with a
// letter and ending alphanumeric, at most 63 characters.
func IsDNS1035Label(value string) []string { return dns1035LabelSyntax.check(value) }

// IsValidPortName returns the problems with value as a named port (an IANA
// service name): at most 15 characters of a-z, 0-9 and '-', at least one
// letter, no "--", and no '-' at either end.
func IsValidPortName(value string) []string {
	var errs []string
	if len(value) > portNameMaxLen {
		errs = append(errs, maxLenError(portNameMaxLen))
	}
	if !portNameCharsRe.MatchString(value) {
		errs = append(errs, "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
	}
	if !portNameLetterRe.MatchString(value) {
		errs = append(errs, "must contain at least one letter (a-z)")
	}
	if strings.Contains(value, "--") {
		errs = append(errs, "must not contain consecutive hyphens")
	}
	if len(value) > 0 && (value[0] == '-' || value[len(value)-1] == '-') {
		errs = append(errs, "must not begin or end with a hyphen")
	}
	return errs
}

// IsValidPortNum returns the problem with port as a port number: it must
// be in 1-65535.
func IsValidPortNum(port int) []string {
	if port < 1 || port > 65535 {
		return []string{"must be between 1 and 65535, inclusive"}
	}
	return nil
}
