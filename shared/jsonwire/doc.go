// Package jsonwire encodes JSON the way Baton stores and sends it: like encoding/json, but without escaping
// '<', '>' and '&' as \u003c, \u003e and \u0026. Tool outputs are often HTML; escaping would grow them up to six
// times between admission and storage, past DynamoDB's item and transaction limits (docs/decisions.md "Payload limits").
// Both forms are the same JSON value to every client.
package jsonwire
