// @ts-check
import eslint from '@eslint/js';
import jest from 'eslint-plugin-jest';
import tseslint from 'typescript-eslint';

/**
 * Lint rules: the recommended sets of ESLint and typescript-eslint, with the
 * type-aware rules that catch real queue bugs (floating promises, misused
 * promises). Formatting is Prettier's job (`npm run format`), not ESLint's.
 */
export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.data/**'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', 'ui/**/*.tsx', 'ui/**/*.mts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Nest modules are classes with only decorators.
      '@typescript-eslint/no-extraneous-class': 'off',
      // require() is used on purpose for optional modules (pino-pretty).
      '@typescript-eslint/no-require-imports': 'off',
      // NUL characters are stripped on purpose: PostgreSQL text and jsonb cannot hold them.
      'no-control-regex': 'off',
    },
  },
  {
    files: ['test/**/*.ts', '**/*.spec.ts'],
    plugins: { jest },
    rules: {
      // A focused test silently skips the rest of the suite; a disabled one silently drops its guarantee.
      'jest/no-focused-tests': 'error',
      'jest/no-disabled-tests': 'error',
      'jest/no-identical-title': 'error',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
);
