/** `import '@elicitkit/react/styles.css'` for the bundler: a stylesheet, no values to type. */
export {};
