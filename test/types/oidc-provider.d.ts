// oidc-provider ships no type declarations; the tests use it as an untyped peer.
declare module 'oidc-provider';
