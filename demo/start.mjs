// `npm start`. The protocol server and the demo page are not built yet (issues 3 to 6);
// until they are, say so plainly and fail, rather than pretend to run.
console.error(
  'aalis-chat: not yet. The protocol package is ready (npm test); the server and the demo page that ' +
    '`npm start` will run are still being built.',
);
process.exit(1);
