// SQL migrations are bundled as text (esbuild `text` loader; a Vite plugin in tests).
declare module '*.sql' {
  const text: string;
  export default text;
}

// The gRPC API's .proto files (proto/) are bundled as text the same way.
declare module '*.proto' {
  const text: string;
  export default text;
}
