import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import '@elicitkit/react/styles.css';
import './globals.css';

export const metadata: Metadata = {
  title: 'Elicitkit chat',
  description: 'A chat whose tools ask you — not the model — for what they are missing.',
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
