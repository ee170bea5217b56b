// The Custom Elements Manifest analyzer's settings (npm run docs, and the reference test).
// package.json's "customElements" field is kept by hand: the analyzer would otherwise
// rewrite it to whichever output folder it last wrote.
export default {
  globs: ['src/**/*.ts'],
  litelement: true,
  packagejson: false,
};
