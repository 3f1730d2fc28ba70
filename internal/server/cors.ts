import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import type { CorsConfig } from '../config';

/**
 * CORS as Flipt configures it (go-chi/cors): the configured origins ("*" = any), the configured
 * request headers, credentials allowed, `Link` exposed, preflights cached for 5 minutes. The
 * evaluation fast lane leaves requests that carry an Origin to Fastify, so they get the same
 * headers.
 */
export async function installCors(app: FastifyInstance, config: CorsConfig): Promise<void> {
  await app.register(cors, {
    origin: config.allowed_origins.includes('*') ? '*' : config.allowed_origins,
    allowedHeaders: config.allowed_headers,
    methods: ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'],
    exposedHeaders: ['Link'],
    credentials: true,
    maxAge: 300,
    strictPreflight: false,
  });
}
