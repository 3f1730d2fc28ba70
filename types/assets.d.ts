// SQL migrations are bundled as text (esbuild `text` loader; a Vite plugin in tests).
declare module '*.sql' {
  const text: string;
  export default text;
}
