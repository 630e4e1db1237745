package docgen

//go:generate go run ../cmd/docgen -out ../../docs -readme ../../README.md
