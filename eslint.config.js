// ESLint flat config: typescript-eslint everywhere, lit and web-component rules for the
// widget, and eslint-config-prettier last so that formatting is Prettier's alone.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import lit from 'eslint-plugin-lit';
import wc from 'eslint-plugin-wc';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/',
      '**/dist/',
      'server/dist-*/',
      '**/generated/',
      '.test-results/',
      'coverage/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      eqeqeq: ['error', 'always'],
      'no-console': 'off',
    },
  },
  {
    files: ['demo/public/**/*.js'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['widget/**/*.ts', '**/*.browser.test.ts'],
    languageOptions: { globals: { ...globals.browser } },
    ...lit.configs['flat/recommended'],
  },
  {
    files: ['widget/**/*.ts'],
    ...wc.configs['flat/recommended'],
  },
  {
    // Chai's property assertions (`expect(x).to.exist`) read as expressions.
    files: ['**/*.browser.test.ts'],
    rules: { '@typescript-eslint/no-unused-expressions': 'off' },
  },
  prettier,
);
