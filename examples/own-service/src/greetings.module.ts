import { Module } from '@nestjs/common';
import { SendGreetingHandler } from './send-greeting.handler';

/** The service's handlers. */
@Module({ providers: [SendGreetingHandler] })
export class GreetingsModule {}
