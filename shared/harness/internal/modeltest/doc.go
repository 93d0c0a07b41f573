// Package modeltest holds what the tests of the model providers (anthropic, bedrock, openai) share: reading a
// model's whole stream as parts, and the request with an output limit and sampling parameters that each provider
// must put on its wire (docs/model-providers.md "Errors").
//
// It is for tests only: no production package imports it. The providers' fake wires stay in their own tests.
package modeltest
